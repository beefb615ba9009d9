package results

// fastRecord decodes a call line into r (zero on entry) the way
// encoding/json would, or reports ok false (r is then garbage) when the
// line has anything the lexer does not handle; see fastdecode.go.
func fastRecord(b []byte, r *Record) (ok bool) {
	return fastRecordWith(b, r, nil, nil)
}

// fastRecordWith is fastRecord with interned names and, when sp is not
// nil, r's maps, slices and pointers lent from sp (see reuse.go).
func fastRecordWith(b []byte, r *Record, names *interner, sp *spare) (ok bool) {
	l := &lexer{ok: true, names: names, sp: sp}
	l.s.Reset(b)
	l.members(func(key []byte) uint64 { return l.recordMember(string(key), r) })
	l.end()
	return l.ok
}

// recordMember decodes the value of one member of a Record and returns
// its bit (0 for an unknown key). The members are split in four groups,
// each its own switch.
func (l *lexer) recordMember(key string, r *Record) uint64 {
	if bit := l.recordCallMember(key, r); bit != 0 {
		return bit
	}
	if bit := l.recordTimeMember(key, r); bit != 0 {
		return bit
	}
	if bit := l.recordOutcomeMember(key, r); bit != 0 {
		return bit
	}
	return l.recordCountMember(key, r)
}

// recordCallMember decodes a member of the call: what it was, which attempt, which phase; 0 for another key.
func (l *lexer) recordCallMember(key string, r *Record) uint64 {
	switch key {
	case "type":
		r.Type = l.name()
		return 1 << 0
	case "id":
		r.ID = l.int64()
		return 1 << 1
	case "seq":
		r.Seq = l.uint64()
		return 1 << 2
	case "tool":
		r.Tool = l.name()
		return 1 << 3
	case "of":
		r.Of = l.uint64()
		return 1 << 4
	case "attempt":
		r.Attempt = l.int()
		return 1 << 5
	case "retry":
		r.Retry = l.name()
		return 1 << 6
	case "process":
		r.Process = l.int()
		return 1 << 7
	case "phase":
		r.Phase = l.name()
		return 1 << 39
	}
	return 0
}

// recordTimeMember decodes a member of the call's moments and durations; 0 for another key.
func (l *lexer) recordTimeMember(key string, r *Record) uint64 {
	switch key {
	case "t":
		text := l.quoted()
		if !l.ok {
			return 1 << 8
		}
		if t, ok := parseUTC(text[1 : len(text)-1]); ok {
			r.Scheduled = t
		} else if r.Scheduled.UnmarshalJSON(text) != nil {
			l.ok = false
		}
		return 1 << 8
	case "sent_us":
		r.SentUs = l.int64()
		return 1 << 9
	case "headers_us":
		r.HeadersUs = l.int64()
		return 1 << 10
	case "first_progress_us":
		r.FirstProgUs = l.int64()
		return 1 << 11
	case "response_us":
		r.ResponseUs = l.int64()
		return 1 << 12
	case "cancel_us":
		r.CancelUs = l.int64()
		return 1 << 13
	case "end_us":
		r.EndUs = l.int64()
		return 1 << 14
	case "deadline_us":
		r.DeadlineUs = l.int64()
		return 1 << 15
	case "timeout_error_us":
		r.TimeoutErrUs = l.int64()
		return 1 << 16
	case "think_us":
		r.ThinkUs = l.int64()
		return 1 << 37
	case "leftover_us":
		r.LeftoverUs = l.int64()
		return 1 << 30
	case "fenced_us":
		r.FencedUs = l.int64()
		return 1 << 53
	case "fence_lag_us":
		r.FenceLagUs = l.int64()
		return 1 << 54
	case "cancel_sent_us":
		r.CancelSentUs = l.int64()
		return 1 << 44
	}
	return 0
}

// recordOutcomeMember decodes a member of how the call ended: outcome, status, error, throttling and retry hints; 0 for another key.
func (l *lexer) recordOutcomeMember(key string, r *Record) uint64 {
	switch key {
	case "cancel_reason":
		r.CancelReason = StopReason(l.name())
		return 1 << 17
	case "outcome":
		r.Outcome = l.name()
		return 1 << 18
	case "status":
		r.Status = l.int()
		return 1 << 19
	case "code":
		r.Code = l.sp.int64(0, l.int64())
		return 1 << 20
	case "message":
		r.Message = l.str()
		return 1 << 21
	case "throttle_kind":
		r.ThrottleKind = l.name()
		return 1 << 22
	case "retry_after_ms":
		r.RetryAfterMs = l.sp.int64(1, l.int64())
		return 1 << 23
	case "result_type":
		r.ResultType = l.name()
		return 1 << 24
	case "error":
		r.Error = l.str()
		return 1 << 25
	case "retry_hint_ms":
		r.RetryHintMs = l.sp.int64(2, l.int64())
		return 1 << 40
	case "retry_hint_from":
		r.RetryHintFrom = l.name()
		return 1 << 41
	case "cap_with_progress":
		r.CapWithProgress = l.bool()
		return 1 << 32
	case "policies":
		if l.sp == nil {
			r.Policies = map[string]string{}
			l.policies(r.Policies)
			return 1 << 33
		}
		// Most calls give the same policies: decode them only when they change.
		l.cached(&l.sp.polRaw, func(sub *lexer) { sub.policies(sub.sp.policies()) })
		r.Policies = l.sp.pol
		return 1 << 33
	}
	return 0
}

// recordCountMember decodes a member of what the call counted: progress, violations, late answers, faults, rounds, inputs; 0 for another key.
func (l *lexer) recordCountMember(key string, r *Record) uint64 {
	switch key {
	case "progress":
		r.Progress = l.sp.progress()
		l.members(func(key []byte) uint64 { return l.progressMember(string(key), r.Progress) })
		return 1 << 26
	case "violations":
		r.Violations = l.sp.counts(false)
		l.members(func(key []byte) uint64 {
			r.Violations[l.names.get(key)] = l.int()
			return anyKey
		})
		return 1 << 27
	case "late_responses":
		r.LateResponses = l.int()
		return 1 << 28
	case "late_progress":
		r.LateProgress = l.int()
		return 1 << 29
	case "faults":
		r.Faults = l.sp.faultList()
		l.elements(func() {
			var f Fault
			l.members(func(key []byte) uint64 { return l.faultMember(string(key), &f) })
			r.Faults = append(r.Faults, f)
		})
		l.sp.keepFaults(r.Faults)
		return 1 << 31
	case "rounds":
		r.Rounds = l.int()
		return 1 << 34
	case "load_shed":
		r.LoadShed = l.int()
		return 1 << 35
	case "inputs":
		r.Inputs = l.sp.counts(true)
		l.members(func(key []byte) uint64 {
			r.Inputs[l.names.get(key)] = l.int()
			return anyKey
		})
		return 1 << 36
	case "content_mismatch":
		r.ContentMismatch = l.int()
		return 1 << 38
	case "late_queued":
		r.LateQueued = l.int()
		return 1 << 42
	case "cancel_answers":
		r.CancelAnswers = l.int()
		return 1 << 43
	case "late_drained":
		r.LateDrained = l.int()
		return 1 << 51
	case "late_queued_prompt":
		r.LateQueuedPrompt = l.int()
		return 1 << 52
	case "ratelimit_limit":
		r.RateLimitLimit = l.int()
		return 1 << 45
	case "ratelimit_window_ms":
		r.RateLimitWindowMs = l.int64()
		return 1 << 46
	case "ratelimit_from":
		r.RateLimitFrom = l.name()
		return 1 << 47
	case "ratelimit_reset_ms":
		r.RateLimitResetMs = l.sp.int64(3, l.int64())
		return 1 << 48
	case "limit":
		r.Limit = l.name()
		return 1 << 49
	case "task":
		r.Task = l.sp.task()
		l.members(func(key []byte) uint64 { return l.taskMember(string(key), r.Task) })
		return 1 << 50
	}
	return 0
}

func (l *lexer) taskMember(key string, t *Task) uint64 {
	switch key {
	case "id":
		t.ID = l.str()
		return 1 << 0
	case "status":
		t.Status = l.name()
		return 1 << 1
	case "created_us":
		t.CreatedUs = l.int64()
		return 1 << 2
	case "end_us":
		t.EndUs = l.int64()
		return 1 << 3
	case "interval_ms":
		t.IntervalMs = l.int64()
		return 1 << 4
	case "polls":
		t.Polls = l.int()
		return 1 << 5
	case "poll_throttled":
		t.PollThrottled = l.int()
		return 1 << 6
	case "updates":
		t.Updates = l.int()
		return 1 << 7
	case "cancel_us":
		t.CancelUs = l.int64()
		return 1 << 8
	case "leftover":
		t.Leftover = l.bool()
		return 1 << 9
	case "listened":
		t.Listened = l.bool()
		return 1 << 10
	case "pushed":
		t.Pushed = l.int()
		return 1 << 11
	}
	return 0
}

func (l *lexer) progressMember(key string, p *Progress) uint64 {
	switch key {
	case "count":
		p.Count = l.int()
		return 1 << 0
	case "values":
		if l.sp == nil {
			p.Values = l.floats([]float64{})
			return 1 << 1
		}
		l.cached(&l.sp.valRaw, func(sub *lexer) { sub.sp.values = sub.floats(sub.sp.floats()) })
		p.Values = l.sp.values
		return 1 << 1
	case "last":
		p.Last = l.float()
		return 1 << 2
	case "total":
		p.Total = l.float()
		return 1 << 3
	case "max_gap_us":
		p.MaxGapUs = l.int64()
		return 1 << 4
	case "max_rate_hz":
		p.MaxRateHz = l.int()
		return 1 << 5
	case "stalled":
		p.Stalled = l.bool()
		return 1 << 6
	case "flood":
		p.Flood = l.bool()
		return 1 << 7
	case "incomplete":
		p.Incomplete = l.bool()
		return 1 << 8
	case "lead_us":
		p.LeadUs = l.int64()
		return 1 << 9
	}
	return 0
}

func (l *lexer) faultMember(key string, f *Fault) uint64 {
	switch key {
	case "kind":
		f.Kind = l.name()
		return 1 << 0
	case "mode":
		f.Mode = l.name()
		return 1 << 1
	case "scheduled_us":
		f.ScheduledUs = l.int64()
		return 1 << 2
	case "actual_us":
		f.ActualUs = l.int64()
		return 1 << 3
	case "error_us":
		f.ErrorUs = l.int64()
		return 1 << 4
	case "detail":
		f.Detail = l.str()
		return 1 << 5
	case "skipped":
		f.Skipped = l.bool()
		return 1 << 6
	}
	return 0
}

// policies decodes a policies object into m.
func (l *lexer) policies(m map[string]string) {
	l.members(func(key []byte) uint64 {
		m[l.names.get(key)] = l.name()
		return anyKey
	})
}

// floats appends an array of numbers to v.
func (l *lexer) floats(v []float64) []float64 {
	l.elements(func() { v = append(v, l.float()) })
	return v
}
