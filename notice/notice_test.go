package notice

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
)

var update = flag.Bool("update", false, "rewrite ../NOTICE from what the binaries link and embed")

func TestClassifyNamesEachLicenceTheDependenciesUse(t *testing.T) {
	const (
		apache = "                                 Apache License\n                           Version 2.0, January 2004\n"
		mit    = "Permission is hereby granted, free of charge, to any person obtaining a copy"
		bsd2   = "Redistribution and use in source and binary forms, with or without\nmodification, are permitted provided that the following conditions are met:"
		bsd3   = bsd2 + "\n* Neither the name of Google Inc. nor the names of its\ncontributors may be used"
	)
	for _, tc := range []struct{ name, text, want string }{
		{"apache", apache, "Apache-2.0"},
		{"mit", "MIT License\n\n" + mit, "MIT"},
		{"bsd-2", bsd2, "BSD-2-Clause"},
		{"bsd-3", bsd3, "BSD-3-Clause"},
		{"mit moving to apache", "The project is moving from the MIT License to the Apache License, Version 2.0.\n" + apache + mit, "Apache-2.0 AND MIT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Classify(tc.text)
			if err != nil || got != tc.want {
				t.Fatalf("Classify = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := Classify("All rights reserved. Do not copy."); !errors.Is(err, ErrUnknownLicence) {
		t.Fatalf("an unknown licence: %v, want ErrUnknownLicence", err)
	}
}

// NOTICE names every module the binaries link and every interface
// definition they embed, with its licence: a dependency added, removed or
// upgraded without NOTICE following fails here.
func TestNOTICEIsCurrent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mods, err := Modules(ctx, "..", "./cmd/...")
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) == 0 {
		t.Fatal("go list found no modules")
	}
	ifaces, err := msgs.Packages()
	if err != nil {
		t.Fatal(err)
	}
	got := Render(mods, ifaces)
	if *update {
		if err := os.WriteFile("../NOTICE", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("../NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("NOTICE is stale (go test ./notice -update rewrites it); it should read:\n%s", got)
	}
	for _, m := range mods {
		if !strings.Contains(string(want), m.Path+" "+m.Version) {
			t.Errorf("NOTICE misses %s %s", m.Path, m.Version)
		}
	}
}
