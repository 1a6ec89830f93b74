package notice

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ErrUnknownLicence: a licence text matches none of the licences this
// package recognises; a person must read it before it ships.
var ErrUnknownLicence = errors.New("notice: licence not recognised")

// markers tell the licences the dependencies use apart by phrases their
// texts must contain.
var markers = []struct {
	id     string
	phrase *regexp.Regexp
}{
	{"Apache-2.0", regexp.MustCompile(`(?is)Apache License.{0,40}Version 2\.0`)},
	{"MIT", regexp.MustCompile(`(?i)Permission is hereby granted, free of charge`)},
	{"BSD-3-Clause", regexp.MustCompile(`(?is)Redistribution and use in source and binary forms.*(Neither the name|names of its\s+contributors)`)},
	{"BSD-2-Clause", regexp.MustCompile(`(?is)Redistribution and use in source and binary forms`)},
}

// Classify names the licences a licence file's text grants, as an SPDX
// expression: one id, or several joined with AND where a file grants parts
// under each (a project moving from MIT to Apache-2.0 says both).
func Classify(text string) (string, error) {
	var ids []string
	for _, m := range markers {
		if m.id == "BSD-2-Clause" && slices.Contains(ids, "BSD-3-Clause") {
			continue // the 3-clause text contains the 2-clause phrase
		}
		if m.phrase.MatchString(text) {
			ids = append(ids, m.id)
		}
	}
	if len(ids) == 0 {
		return "", ErrUnknownLicence
	}
	slices.Sort(ids)
	return strings.Join(ids, " AND "), nil
}

// licenceFileRE names the files a module keeps its licence in.
var licenceFileRE = regexp.MustCompile(`(?i)^(licen[cs]e|copying)(\.(txt|md))?$`)

// LicenceFile finds a module directory's licence file and classifies it.
func LicenceFile(dir string) (path, licence string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	for _, e := range entries {
		if e.IsDir() || !licenceFileRE.MatchString(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return "", "", err
		}
		l, err := Classify(string(b))
		if err != nil {
			return p, "", fmt.Errorf("%s: %w", p, err)
		}
		return p, l, nil
	}
	return "", "", fmt.Errorf("%s: no licence file: %w", dir, ErrUnknownLicence)
}
