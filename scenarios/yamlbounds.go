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
	var stack []pathLevel
	flows, prefix, total := 0, 0, 0
	push := func(l pathLevel) {
		stack = append(stack, l)
		prefix += l.bytes
	}
	pop := func() {
		prefix -= stack[len(stack)-1].bytes
		if stack[len(stack)-1].flow {
			flows--
		}
		stack = stack[:len(stack)-1]
	}
	// block places an entry of a block collection (a key, or a dash when
	// seq) at column: it ends the collections indented deeper, and
	// continues the one at that column or opens a new one.
	block := func(column int, seq bool, bytes int) {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			sameColumnOther := top.column == column && top.seq != seq &&
				len(stack) > 1 && stack[len(stack)-2].column == column
			if top.column <= column && !sameColumnOther {
				break
			}
			pop()
		}
		if n := len(stack); n > 0 && stack[n-1].column == column && stack[n-1].seq == seq {
			prefix += bytes - stack[n-1].bytes
			stack[n-1].bytes = bytes
			return
		}
		push(pathLevel{column: column, seq: seq, bytes: bytes})
	}
	for i, tk := range tokens {
		if tk == nil || tk.Position == nil {
			continue
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flows++
			push(pathLevel{flow: true, seq: tk.Type == token.SequenceStartType, bytes: indexBytes})
		case token.SequenceEndType, token.MappingEndType:
			for flows > 0 {
				wasFlow := stack[len(stack)-1].flow
				pop()
				if wasFlow {
					break
				}
			}
		case token.SequenceEntryType:
			if flows == 0 {
				block(tk.Position.Column, true, indexBytes)
			}
		case token.MappingKeyType:
			if flows == 0 {
				block(tk.Position.Column, false, 3)
			}
		case token.MappingValueType:
			key := keyBefore(tokens, i)
			keyBytes := 3
			if key != nil {
				keyBytes += len(key.Value)
			}
			switch {
			case flows > 0:
				if top := &stack[len(stack)-1]; !top.seq {
					prefix += keyBytes - top.bytes
					top.bytes = keyBytes
				}
			case key != nil && key.Position != nil:
				block(key.Position.Column, false, keyBytes)
			}
		}
		p := Pos{Line: tk.Position.Line, Column: tk.Position.Column}
		if len(stack) > MaxNesting {
			return &tokenBoundError{p, fmt.Sprintf("nested deeper than %d levels", MaxNesting)}
		}
		if total += prefix; total > maxPathBytes {
			return &tokenBoundError{p, fmt.Sprintf("long keys above many values: the YAML parser would keep more than %s of key paths (every value holds the keys above it); shorten the keys", ByteSize(maxPathBytes))}
		}
	}
	return nil
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
