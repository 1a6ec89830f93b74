package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Spill writes output too large for a result to a file under dir and
// returns its path; the file name is the content digest so the same output
// is written once.
func Spill(dir, prefix string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("spill dir: %w", err)
	}
	sum := sha256.Sum256(data)
	path := filepath.Join(dir, prefix+"-"+hex.EncodeToString(sum[:8])+".txt")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o640); err != nil {
		return "", fmt.Errorf("spill write: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("spill rename: %w", err)
	}
	return path, nil
}

// ReadRange returns a byte range or a line range of a spilled file, which
// must lie inside dir (the read tool never opens anything else).
func ReadRange(dir, path string, offset, length, fromLine, lines int) (string, int64, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", 0, err
	}
	abs, err := filepath.Abs(path)
	if err != nil || !strings.HasPrefix(abs, absDir+string(filepath.Separator)) {
		return "", 0, RuleError(CodePermissionDenied, "spill_dir_only", "path",
			"only files the bridge spilled can be read")
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", 0, RuleError(CodeNotFound, "spill_file_exists", "path", "no such output file")
	}
	size := int64(len(data))
	if lines > 0 {
		all := strings.SplitAfter(string(data), "\n")
		if fromLine < 1 {
			fromLine = 1
		}
		if fromLine > len(all) {
			return "", size, nil
		}
		end := min(fromLine-1+lines, len(all))
		return strings.Join(all[fromLine-1:end], ""), size, nil
	}
	if offset > len(data) {
		offset = len(data)
	}
	end := min(offset+length, len(data))
	return string(data[offset:end]), size, nil
}
