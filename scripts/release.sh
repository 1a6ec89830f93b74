#!/usr/bin/env bash
# Builds the release into dist/ (or $DIST): static binaries (no cgo) of
# actbridge and simrobot for linux/amd64 and linux/arm64, stamped with the
# version (VERSION), the commit and the build date; LICENSE, NOTICE, the
# licence texts of every module they link (THIRD_PARTY_LICENSES) and
# SHA256SUMS. Needs Go and git only.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
out=${DIST:-dist}
version=$(tr -d '[:space:]' < VERSION)
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$commit" != unknown ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit-dirty"
fi
# SOURCE_DATE_EPOCH, when set, makes the stamp reproducible.
date=$(date -u ${SOURCE_DATE_EPOCH:+-d @$SOURCE_DATE_EPOCH} +%Y-%m-%dT%H:%M:%SZ)
pkg=github.com/actbridge/actbridge/version
ldflags="-s -w -X $pkg.version=$version -X $pkg.commit=$commit -X $pkg.date=$date"

rm -rf "$out"
mkdir -p "$out"
for arch in amd64 arm64; do
	for cmd in actbridge simrobot; do
		CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$out/$cmd-linux-$arch" "./cmd/$cmd"
	done
done
cp LICENSE NOTICE "$out/"
{
	echo "Licence texts of the Go modules linked into actbridge and simrobot $version (NOTICE lists them,"
	echo "and the ROS interface definitions the binaries embed with their licences)."
	go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/... | sort -u |
		while read -r path ver dir; do
			f=$(find "$dir" -maxdepth 1 -type f | grep -iE '/(licen[cs]e|copying)(\.(txt|md))?$' | sort | head -1)
			[ -n "$f" ] || { echo "release: $path $ver has no licence file" >&2; exit 1; }
			printf '\n==== %s %s (%s) ====\n\n' "$path" "$ver" "$(basename "$f")"
			cat "$f"
		done
} > "$out/THIRD_PARTY_LICENSES"
(cd "$out" && sha256sum -- * > SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
echo "release $version ($commit, $date) in $out/:"
ls -l "$out"
