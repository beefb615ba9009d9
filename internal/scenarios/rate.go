package scenarios

import "github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"

// Rate is a number of events per period, written "N/PERIOD": "50/1s",
// "50/s", "3000/1m". It is knobs.Rate, whose parser is the tree's one rate
// parser (the built-in target's rate_limit knob is a rate too).
type Rate = knobs.Rate
