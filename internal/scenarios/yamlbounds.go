package scenarios

import (
	"fmt"
	"math"

	"github.com/goccy/go-yaml/token"
)

// This file bounds what the YAML library is asked to hold. Its lexer keeps
// about 250 bytes per token, and its parser keeps in every node the path
// of keys above it (a string as long as those keys together), so that
// nesting costs memory quadratically: a 1 MB file of "[[[[..." took more
// than 4 GB, and one 10 KB key above 20,000 values 200 MB. Two passes keep
// both linear and small:
//
//   - before the lexer, countTokens bounds the number of tokens from the
//     raw bytes (an over-estimate: every run of blanks and every YAML
//     indicator character counts as one);
//   - between the lexer and the parser, checkTokens measures the nesting
//     depth and the bytes of key paths the parser would build, from the
//     lexer's own tokens.

// yamlIndicators are the characters that may start or end a YAML token
// (YAML 1.2, section 5.3).
const yamlIndicators = "-?:,[]{}#&*!|>'\"%@`"

// countTokens returns the position in data at which an over-estimate of
// the number of YAML tokens passes MaxTokens, or the zero Pos when it
// stays within. A token is delimited by blanks or indicators, so there
// cannot be more tokens than runs of blanks plus indicators, plus one.
func countTokens(data []byte) Pos {
	_, p := tokensUpTo(data, MaxTokens)
	return p
}

// TokenEstimate is the over-estimate of the YAML tokens in data that the
// bound MaxTokens is held to (see countTokens): a writer of scenarios
// (mcpchaos init) keeps its file within it.
func TokenEstimate(data []byte) int {
	n, _ := tokensUpTo(data, math.MaxInt)
	return n
}

// tokensUpTo counts tokens as countTokens does, stopping at the position
// where the count passes limit.
func tokensUpTo(data []byte, limit int) (int, Pos) {
	var isIndicator [256]bool
	for i := 0; i < len(yamlIndicators); i++ {
		isIndicator[yamlIndicators[i]] = true
	}
	n, line, col := 1, 1, 0
	blank := false
	for _, c := range data {
		col++
		if c&0xc0 == 0x80 {
			col-- // a UTF-8 continuation byte: the same column
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			if !blank {
				n++
			}
			blank = true
		default:
			blank = false
			if isIndicator[c] {
				n++
			}
		}
		if n > limit {
			return n, Pos{Line: line, Column: max(col, 1)}
		}
		if c == '\n' {
			line, col = line+1, 0
		}
	}
	return n, Pos{}
}

// pathLevel is one open collection while checkTokens walks the tokens.
type pathLevel struct {
	column int  // block collections: the column of their keys or dashes
	flow   bool // a flow collection ([...] or {...})
	seq    bool // a sequence rather than a mapping
	bytes  int  // what the level adds to a node's path: ".key" or "[index]"
}

// indexBytes is what a sequence index adds to a path ("[12345]").
const indexBytes = 8

// tokenBoundError is a bound checkTokens found exceeded, at a token.
type tokenBoundError struct {
	pos Pos
	msg string
}

// checkTokens follows the nesting of tokens as the parser will and
// reports the first token nested deeper than MaxNesting levels, or at
// which the parser's key paths would pass maxPathBytes. Block
// collections are told apart by the columns of their keys and dashes,
// flow collections by their brackets.
func checkTokens(tokens token.Tokens) *tokenBoundError {
	var n nesting
	total := 0
	for i, tk := range tokens {
		if tk == nil || tk.Position == nil {
			continue
		}
		n.step(tokens, i)
		p := Pos{Line: tk.Position.Line, Column: tk.Position.Column}
		if len(n.stack) > MaxNesting {
			return &tokenBoundError{p, fmt.Sprintf("nested deeper than %d levels", MaxNesting)}
		}
		if total += n.prefix; total > maxPathBytes {
			return &tokenBoundError{p, fmt.Sprintf("long keys above many values: the YAML parser would keep more than %s of key paths (every value holds the keys above it); shorten the keys", ByteSize(maxPathBytes))}
		}
	}
	return nil
}

// nesting is where checkTokens is: the open collections, how many of them
// are flow collections, and the bytes of the key path they make.
type nesting struct {
	stack  []pathLevel
	flows  int
	prefix int
}

// step follows tokens[i].
func (n *nesting) step(tokens token.Tokens, i int) {
	tk := tokens[i]
	switch tk.Type {
	case token.SequenceStartType, token.MappingStartType:
		n.flows++
		n.push(pathLevel{flow: true, seq: tk.Type == token.SequenceStartType, bytes: indexBytes})
	case token.SequenceEndType, token.MappingEndType:
		for n.flows > 0 {
			wasFlow := n.stack[len(n.stack)-1].flow
			n.pop()
			if wasFlow {
				break
			}
		}
	case token.SequenceEntryType:
		if n.flows == 0 {
			n.block(tk.Position.Column, true, indexBytes)
		}
	case token.MappingKeyType:
		if n.flows == 0 {
			n.block(tk.Position.Column, false, 3)
		}
	case token.MappingValueType:
		key := keyBefore(tokens, i)
		keyBytes := 3
		if key != nil {
			keyBytes += len(key.Value)
		}
		switch {
		case n.flows > 0:
			if top := &n.stack[len(n.stack)-1]; !top.seq {
				n.prefix += keyBytes - top.bytes
				top.bytes = keyBytes
			}
		case key != nil && key.Position != nil:
			n.block(key.Position.Column, false, keyBytes)
		}
	}
}

func (n *nesting) push(l pathLevel) {
	n.stack = append(n.stack, l)
	n.prefix += l.bytes
}

func (n *nesting) pop() {
	top := n.stack[len(n.stack)-1]
	n.prefix -= top.bytes
	if top.flow {
		n.flows--
	}
	n.stack = n.stack[:len(n.stack)-1]
}

// block places an entry of a block collection (a key, or a dash when seq)
// at column: it ends the collections indented deeper, and continues the
// one at that column or opens a new one.
func (n *nesting) block(column int, seq bool, bytes int) {
	for len(n.stack) > 0 {
		top := n.stack[len(n.stack)-1]
		sameColumnOther := top.column == column && top.seq != seq &&
			len(n.stack) > 1 && n.stack[len(n.stack)-2].column == column
		if top.column <= column && !sameColumnOther {
			break
		}
		n.pop()
	}
	if l := len(n.stack); l > 0 && n.stack[l-1].column == column && n.stack[l-1].seq == seq {
		n.prefix += bytes - n.stack[l-1].bytes
		n.stack[l-1].bytes = bytes
		return
	}
	n.push(pathLevel{column: column, seq: seq, bytes: bytes})
}

// keyBefore returns the token before tokens[i] that is not a comment: the
// key of the ':' at i.
func keyBefore(tokens token.Tokens, i int) *token.Token {
	for j := i - 1; j >= 0; j-- {
		if tokens[j] != nil && tokens[j].Type != token.CommentType {
			return tokens[j]
		}
	}
	return nil
}
