package bridge

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// RateLimits are calls per minute: one bucket per tool (Tools, else
// Default) and one Global bucket every call also draws from. Zero means
// no bucket. A bucket holds a minute's worth of calls and refills evenly.
type RateLimits struct {
	Global  float64
	Default float64
	Tools   map[string]float64
}

// neverLimited are the tools a planner must always be able to call.
var neverLimited = map[string]bool{"robot_stop": true, "motion_cancel": true}

// NeverLimited reports whether a tool is exempt from rate limits.
func NeverLimited(tool string) bool { return neverLimited[tool] }

// RateLimiter holds the token buckets. A refused call takes no token.
type RateLimiter struct {
	limits RateLimits
	now    func() time.Time

	mu      sync.Mutex
	global  *bucket
	buckets map[string]*bucket
}

type bucket struct {
	perMin float64
	tokens float64
	at     time.Time
}

func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.at).Seconds(); dt > 0 {
		b.tokens = math.Min(b.perMin, b.tokens+dt*b.perMin/60)
	}
	b.at = now
}

// wait is how long until the bucket holds a whole token.
func (b *bucket) wait() time.Duration {
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * 60 / b.perMin * float64(time.Second))
}

// NewRateLimiter starts every bucket full; now may be nil (time.Now).
func NewRateLimiter(l RateLimits, now func() time.Time) *RateLimiter {
	if now == nil {
		now = time.Now
	}
	r := &RateLimiter{limits: l, now: now, buckets: map[string]*bucket{}}
	if l.Global > 0 {
		r.global = &bucket{perMin: l.Global, tokens: l.Global, at: now()}
	}
	return r
}

func (r *RateLimiter) perMinute(tool string) float64 {
	if v, ok := r.limits.Tools[tool]; ok {
		return v
	}
	return r.limits.Default
}

// Take draws one token from the tool's bucket and the global one, or
// neither. On refusal it says which bucket ran dry and how long to wait.
func (r *RateLimiter) Take(tool string) (ok bool, wait time.Duration, which string, perMin float64) {
	if neverLimited[tool] {
		return true, 0, "", 0
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	var tb *bucket
	if pm := r.perMinute(tool); pm > 0 {
		tb = r.buckets[tool]
		if tb == nil {
			tb = &bucket{perMin: pm, tokens: pm, at: now}
			r.buckets[tool] = tb
		}
		tb.refill(now)
		if w := tb.wait(); w > 0 {
			wait, which, perMin = w, "tool", pm
		}
	}
	if g := r.global; g != nil {
		g.refill(now)
		if w := g.wait(); w > wait {
			wait, which, perMin = w, "global", g.perMin
		}
	}
	if wait > 0 {
		return false, wait, which, perMin
	}
	if tb != nil {
		tb.tokens--
	}
	if r.global != nil {
		r.global.tokens--
	}
	return true, 0, "", 0
}

// admit is the pipeline's rate-limit stage: a call of a tool the limits
// apply to (Tool.RateLimited) draws from the buckets before the tool's
// own checks; the operator is never limited.
func (r *RateLimiter) admit(t *Tool, role Role) *Error {
	if r == nil || role == RoleOperator || !t.RateLimited() {
		return nil
	}
	return r.refusal(t.Name)
}

func (r *RateLimiter) refusal(tool string) *Error {
	ok, wait, which, perMin := r.Take(tool)
	if ok {
		return nil
	}
	secs := math.Ceil(wait.Seconds()*10) / 10
	scope := tool
	if which == "global" {
		scope = "all tools together"
	}
	e := StateError(CodeBusy, fmt.Sprintf("rate limit reached: %g calls per minute for %s", perMin, scope),
		fmt.Sprintf("the next call is allowed in %.1f s", secs), fmt.Sprintf("%s is rate limited; nothing was sent", tool))
	e.Rule = "rate_limit"
	return e.WithHint(fmt.Sprintf("wait %.1f s before calling %s again; do not retry in a loop", secs, tool)).
		WithDetails(map[string]any{"retry_after_s": secs, "bucket": which, "limit_per_minute": perMin})
}

// Describe is the limits as robot_describe shows them.
func (l RateLimits) Describe() map[string]any {
	tools := map[string]float64{}
	for k, v := range l.Tools {
		tools[k] = v
	}
	return map[string]any{"per_minute": true, "global": l.Global, "default": l.Default, "tools": tools,
		"never_limited": []string{"motion_cancel", "robot_stop"}, "note": "0 means unlimited; operator calls are not limited"}
}
