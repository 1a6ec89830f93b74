// Package metrics is the bridge's Prometheus side: tool calls, previews and
// confirmations from the call pipeline (bridge.Observer), motions from the
// motion tracker, store commits and failures, and robot health read at
// scrape time. Every label value comes from a closed set (registered tools,
// bridge.AllCodes, configured actuators, motion states); motion ids and
// messages never become labels. launch/METRICS.md lists every metric.
package metrics
