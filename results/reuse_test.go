package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

// reuseLines are call lines that, decoded one after another into one slot,
// exercise every container a spare lends: set, absent, the same as the
// line before, different, empty.
func reuseLines(t testing.TB) [][]byte {
	var recs []Record
	for i := range 6 {
		recs = append(recs, testRecord(i))
		var every Record
		fill(reflect.ValueOf(&every).Elem(), i)
		every.Type = TypeCall
		recs = append(recs, every)
	}
	same := testRecord(0)
	same.Message = "no escapes"
	recs = append(recs, same, same)
	other := same
	other.Policies = map[string]string{"cap": "killed", "fixed": "waited_forever"}
	other.Progress = &Progress{Count: 2, Values: []float64{0.5, 1}}
	recs = append(recs, other, other, same)
	empty := same
	empty.Policies, empty.Progress = map[string]string{}, &Progress{Values: []float64{}}
	recs = append(recs, empty, same, Record{Type: TypeCall, Outcome: OK})
	var lines [][]byte
	for _, r := range recs {
		b, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	return lines
}

// TestReuseDecodesEachLineAnew: lines decoded one after another into one
// reused slot (Handler.Reuse: containers lent, names interned, unchanged
// values kept) each give what encoding/json gives for that line alone.
func TestReuseDecodesEachLineAnew(t *testing.T) {
	lines := reuseLines(t)
	for _, tt := range []struct {
		name  string
		order func(i int) int
	}{
		{"in order", func(i int) int { return i }},
		{"reversed", func(i int) int { return len(lines) - 1 - i }},
		{"each twice", func(i int) int { return i / 2 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := decoder{h: &Handler{Record: func(*Record) error { return nil }, Reuse: true}}
			var it item
			for i := range lines {
				b := lines[tt.order(i)%len(lines)]
				d.decode(&it, b, i+1)
				var want Record
				if err := json.Unmarshal(b, &want); err != nil {
					t.Fatal(err)
				}
				if it.err != nil || !reflect.DeepEqual(it.rec, want) {
					t.Fatalf("line %s: err %v\ngot  %+v\nwant %+v", b, it.err, it.rec, want)
				}
			}
		})
	}
}

// FuzzFastRecordReuse: a line decoded into a slot that held another line
// (containers lent, values kept when unchanged) is what encoding/json
// makes of it alone.
func FuzzFastRecordReuse(f *testing.F) {
	lines := reuseLines(f)
	for i := range lines {
		f.Add(lines[i], lines[(i+1)%len(lines)])
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var names interner
		var sp spare
		var r Record
		fastRecordWith(a, &r, &names, &sp)
		r = Record{}
		if !fastRecordWith(b, &r, &names, &sp) {
			return
		}
		var std Record
		if err := json.Unmarshal(b, &std); err != nil {
			t.Fatalf("fast decoder accepted %q, encoding/json: %v", b, err)
		}
		if !reflect.DeepEqual(r, std) {
			t.Fatalf("%q after %q:\nfast %+v\nstd  %+v", b, a, r, std)
		}
	})
}
