package results

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fill sets every exported field of v (recursively) to a non-zero value
// derived from n, so a field the fast decoder does not know shows up.
func fill(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(t0.Add(time.Duration(n) * time.Microsecond)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n+i)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n)
		fill(v.Index(1), n+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		v.SetMapIndex(k, e)
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", n%7) + "é")
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(-n - 1))
	case reflect.Uint64:
		v.SetUint(uint64(n + 1))
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// TestFastRecordKnowsEveryField: a record with every field set decodes on
// the fast path, equal to encoding/json's result. A field added to Record
// without a case in recordMember fails here.
func TestFastRecordKnowsEveryField(t *testing.T) {
	for i := range 8 {
		var want Record
		fill(reflect.ValueOf(&want).Elem(), i)
		b, err := json.Marshal(&want)
		if err != nil {
			t.Fatal(err)
		}
		var got Record
		if !fastRecord(b, &got) {
			t.Fatalf("the fast decoder gave up on a line our writer wrote:\n%s", b)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fast decode:\n%+v\nwant:\n%+v", got, want)
		}
	}
}

func TestFastRecordGivesUp(t *testing.T) {
	for _, tt := range []struct{ name, line string }{
		{"escape in a string", `{"type":"call","message":"a \"quoted\" word"}`},
		{"null", `{"type":"call","code":null}`},
		{"unknown member", `{"type":"call","new_field":1}`},
		{"key in another case", `{"Type":"call"}`},
		{"repeated member", `{"type":"call","seq":1,"seq":2}`},
		{"fraction in an integer", `{"type":"call","seq":1.5}`},
		{"exponent in an integer", `{"type":"call","id":1e3}`},
		{"leading zero", `{"type":"call","id":01}`},
		{"negative unsigned", `{"type":"call","seq":-1}`},
		{"overflow", `{"type":"call","id":99999999999999999999}`},
		{"trailing garbage", `{"type":"call"} x`},
		{"cut short", `{"type":"call","seq":1`},
		{"invalid UTF-8", "{\"type\":\"call\",\"tool\":\"\xff\"}"},
		{"control character", "{\"type\":\"call\",\"tool\":\"a\tb\"}"},
		{"bad time", `{"type":"call","t":"yesterday"}`},
		{"string for a number", `{"type":"call","id":"1"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			if fastRecord([]byte(tt.line), &r) {
				t.Errorf("fast decoder accepted %s as %+v", tt.line, r)
			}
		})
	}
}

// FuzzFastRecord: whenever the fast decoder accepts a line, encoding/json
// accepts it too and gives the same record.
func FuzzFastRecord(f *testing.F) {
	for i := range 6 {
		r := testRecord(i)
		b, _ := json.Marshal(&r)
		f.Add(b)
	}
	f.Add([]byte(`{"type":"call","violations":{"a":1,"a":2},"policies":{}}`))
	f.Add([]byte(`{ "type" : "call" , "progress" : { "values" : [ 1e3 , -0.5 ] } , "faults" : [ ] }`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast Record
		if !fastRecord(b, &fast) {
			return
		}
		var std Record
		if err := json.Unmarshal(b, &std); err != nil {
			t.Fatalf("fast decoder accepted %q, encoding/json: %v", b, err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q:\nfast %+v\nstd  %+v", b, fast, std)
		}
	})
}

// BenchmarkFastRecord decodes typical call lines on the fast path (the
// report's hot loop): the lexer's cost per line.
func BenchmarkFastRecord(b *testing.B) {
	lines := make([][]byte, 6)
	for i := range lines {
		r := testRecord(i)
		r.Message = "message without escapes"
		if i%2 == 1 {
			fill(reflect.ValueOf(&r).Elem(), i) // every field set
		}
		lines[i], _ = json.Marshal(&r)
	}
	b.ReportAllocs()
	var r Record
	for i := 0; b.Loop(); i++ {
		r = Record{}
		if !fastRecord(lines[i%len(lines)], &r) {
			b.Fatalf("fast path gave up on %s", lines[i%len(lines)])
		}
	}
}
