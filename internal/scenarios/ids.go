package scenarios

// How request ids are numbered (load.ids). By default every call of a run
// gets the next id of one sequence shared by every connection, so ids are
// unique in the whole run. A gateway or bridge in front of servers may
// renumber ids, key its state by id alone, or assume ids only grow; these
// modes make that visible:
//
//   - colliding: each connection (an HTTP client with its own connections
//     and, on 2025, its own session; a stdio server process) numbers its
//     calls 1, 2, 3, ... on its own, so the same id is in flight on
//     several connections at once. Ids stay unique per connection, as
//     JSON-RPC requires.
//   - shuffled: ids are unique in the run but handed out out of order
//     (each block of IDShuffleBlock ids is permuted, from the seed).

// The id modes.
const (
	IDsSequential = "sequential"
	IDsColliding  = "colliding"
	IDsShuffled   = "shuffled"
)

var idModes = []string{IDsSequential, IDsColliding, IDsShuffled}

// MaxConnections bounds load.ids.connections.
const MaxConnections = 64

// IDs is load.ids.
type IDs struct {
	Mode string // one of idModes; "" is sequential
	// Connections is how many HTTP clients share the load (round robin);
	// default 2 when colliding, else 1 (0 is 1). stdio targets: their
	// processes.
	Connections int
	Pos         Pos
}

var idsKeys = idsFields().names()

func idsFields() fields {
	return fields{
		{Name: "mode", Type: EnumType(idModes...), Doc: "sequential (default: one sequence for the run), colliding (each connection counts from 1: the same id on several connections at once) or shuffled (unique, out of order)"},
		{Name: "connections", Type: IntBetweenType(1, MaxConnections), Doc: "HTTP targets: how many clients (each with its own connections and 2025 session) share the load; default 2 when colliding, else 1"},
	}
}

// ids decodes load.ids.
func (d *decoder) ids(o *object, pos Pos) IDs {
	o.known(idsKeys...)
	ids := IDs{Mode: o.enum("mode", IDsSequential, idModes...), Pos: pos}
	def := 1
	if ids.Mode == IDsColliding {
		def = 2
	}
	ids.Connections = int(o.intBetween("connections", int64(def), 1, MaxConnections))
	if o.present("connections") {
		d.idsConnPos = o.at("connections")
	}
	return ids
}

// validateIDs checks load.ids against the target: stdio connections are
// its processes, and colliding needs two connections.
func (d *decoder) validateIDs(s *Scenario) {
	ids := s.Load.IDs
	stdio := s.Target.Stdio != nil || s.Target.Builtin != nil && s.Target.Builtin.Transport == TransportStdio
	conns := ids.Connections
	switch {
	case stdio && d.idsConnPos.IsValid():
		d.errorf(d.idsConnPos, "load.ids.connections", "does not apply to stdio targets: their connections are the server processes (target.stdio.processes)")
		return
	case stdio:
		conns = 1
		if s.Target.Stdio != nil {
			conns = max(s.Target.Stdio.Processes, 1)
		}
	}
	if ids.Mode == IDsColliding && conns < 2 {
		d.errorf(ids.Pos, "load.ids", "colliding ids need at least two connections (%d here): ids collide only across connections", conns)
	}
	for _, p := range s.Orphans.Probes {
		if ids.Mode == IDsColliding && p.Log != nil {
			d.errorf(ids.Pos, "load.ids", "colliding ids cannot be used with a log probe (%s at line %d), which finds calls by id", p.Name, p.Pos.Line)
		}
	}
}
