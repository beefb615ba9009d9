// Reads an HdrHistogram interval log with hdr-histogram-js's own
// HistogramLogReader, adds the intervals of each tag into one histogram
// and prints, per tag, the interval count, the total count, a few
// percentiles (in the log's unit, microseconds) and the .hgrm percentile
// distribution in milliseconds (outputPercentileDistribution(5, 1000)).
// Usage: node readhlog.js MODULE_DIR FILE.hlog
const fs = require("fs");
const path = require("path");
const hdr = require(path.resolve(process.argv[2]));
const reader = new hdr.HistogramLogReader(fs.readFileSync(process.argv[3], "utf8"), 64);
const byTag = {};
let h;
while ((h = reader.nextIntervalHistogram()) != null) {
  const tag = h.tag || "";
  if (!byTag[tag]) {
    byTag[tag] = {
      intervals: 0,
      sum: hdr.build({ bitBucketSize: 64, lowestDiscernibleValue: 1, highestTrackableValue: 3600000000, numberOfSignificantValueDigits: 3 }),
    };
  }
  byTag[tag].intervals++;
  byTag[tag].sum.add(h);
}
const out = {};
for (const [tag, t] of Object.entries(byTag)) {
  const s = t.sum;
  out[tag] = {
    intervals: t.intervals,
    count: s.totalCount,
    p50: s.getValueAtPercentile(50),
    p90: s.getValueAtPercentile(90),
    p99: s.getValueAtPercentile(99),
    max: s.maxValue,
    hgrm: s.outputPercentileDistribution(5, 1000),
  };
}
process.stdout.write(JSON.stringify(out));
