package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Batch limits: a batch is bounded in calls and its results in bytes.
const (
	MaxBatchCalls       = 16
	MaxBatchResultBytes = 64 << 10
)

// BatchItem is one call's own outcome inside a batch.
type BatchItem struct {
	Index  int             `json:"index"`
	Tool   string          `json:"tool"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
	// Truncated is set when this result was dropped to keep the batch within
	// its byte budget; call the tool alone to get it.
	Truncated bool `json:"truncated,omitempty"`
}

// BatchResult reports every call; Succeeded+Failed equals the call count,
// and a partial failure is never reported as success.
type BatchResult struct {
	Items     []BatchItem `json:"items"`
	Succeeded int         `json:"succeeded"`
	Failed    int         `json:"failed"`
	AllOK     bool        `json:"all_ok"`
}

type batchCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// RunBatch runs reads concurrently and writes serialized by resource key,
// keeping results in the original order. Nested batches are refused.
func (p *Pipeline) RunBatch(ctx context.Context, calls []batchCall, inv Invocation) BatchResult {
	items := make([]BatchItem, len(calls))
	var wg sync.WaitGroup
	byKey := map[string][]int{}
	var keyOrder []string
	for i, bc := range calls {
		items[i] = BatchItem{Index: i, Tool: bc.Tool}
		t, ok := p.Registry.Lookup(bc.Tool)
		if ok && (t.Name == "tools_batch" || t.Name == "tools_invoke") {
			items[i].Error = RuleError(CodeInvalidArgument, "no_nested_batch", fmt.Sprintf("calls[%d].tool", i), "a batch cannot contain "+t.Name)
			continue
		}
		if ok && (t.Tier == TierRead) {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				p.runItem(ctx, &items[i], calls[i], inv)
			}(i)
			continue
		}
		key := "none"
		if ok {
			// The key the pipeline will lock: per call for tools that name
			// their actuator (two arms' moves need not wait on each other).
			if k := t.resourceFor(&Call{Tool: t, Values: bc.Arguments}); k != "" {
				key = k
			}
		}
		if _, seen := byKey[key]; !seen {
			keyOrder = append(keyOrder, key)
		}
		byKey[key] = append(byKey[key], i)
	}
	for _, key := range keyOrder {
		wg.Add(1)
		go func(idx []int) {
			defer wg.Done()
			for _, i := range idx {
				p.runItem(ctx, &items[i], calls[i], inv)
			}
		}(byKey[key])
	}
	wg.Wait()
	res := BatchResult{Items: items}
	budget := MaxBatchResultBytes
	for i := range res.Items {
		it := &res.Items[i]
		if it.Error != nil {
			res.Failed++
			continue
		}
		res.Succeeded++
		if len(it.Result) > budget {
			it.Result, it.Truncated = nil, true
			continue
		}
		budget -= len(it.Result)
	}
	res.AllOK = res.Failed == 0
	return res
}

func (p *Pipeline) runItem(ctx context.Context, it *BatchItem, bc batchCall, inv Invocation) {
	raw, _ := json.Marshal(bc.Arguments)
	out, err := p.Call(ctx, bc.Tool, raw, inv)
	if err != nil {
		it.Error = err
		return
	}
	b, merr := json.Marshal(out)
	if merr != nil {
		it.Error = Errf(CodeInternal, "result not encodable: %v", merr)
		return
	}
	it.OK, it.Result = true, b
}
