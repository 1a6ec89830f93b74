package promtest

import (
	"context"
	"fmt"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families maps gathered metric families to their type names, for SeriesNames.
func Families(fams []*dto.MetricFamily) map[string]string {
	out := make(map[string]string, len(fams))
	for _, f := range fams {
		out[f.GetName()] = f.GetType().String()
	}
	return out
}

// ScrapeFamilies reads a live /metrics endpoint (text format) and returns
// its families and their types, for SeriesNames.
func ScrapeFamilies(ctx context.Context, url string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: HTTP %d", url, resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	out := make(map[string]string, len(fams))
	for name, f := range fams {
		out[name] = f.GetType().String()
	}
	return out, nil
}
