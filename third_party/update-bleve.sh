#!/bin/sh
# update-bleve.sh re-creates third_party/bleve from the Go module cache: the
# release's files cortex keeps (Go and assembly sources without tests, go.mod,
# go.sum and every licence, notice and author file), then the patches in third_party/bleve-patches
# applied in name order. See third_party/bleve/CORTEX-PATCHES.md. With
# --module NAME it does the same for another vendored module, in
# third_party/NAME with third_party/NAME-patches: goldmark
# (github.com/yuin/goldmark), snappy (github.com/golang/snappy),
# jsonschema-go (github.com/google/jsonschema-go), compress
# (github.com/klauspost/compress, without the packages cortex does not link),
# go-sdk (github.com/modelcontextprotocol/go-sdk, without its examples),
# ulid (github.com/oklog/ulid/v2) or zapx (github.com/blevesearch/zapx/v17,
# the one segment format bleve writes).
#
# Usage: third_party/update-bleve.sh [--module NAME] [--check] [--no-patches] [VERSION]
#
#   VERSION       the release to copy; default: the version go.mod requires.
#   --module NAME the vendored module: bleve (the default), goldmark, snappy,
#                 jsonschema-go, compress, go-sdk, ulid or zapx.
#   --check       re-create into a temporary folder and compare it with
#                 third_party/NAME; exit 1 on any difference. Changes nothing.
#   --no-patches  copy the release without applying the patches (to redo a
#                 patch that no longer applies).
#
# It needs sh, find, tar, git and go. The module is fetched with go mod download,
# which is a no-op when the module cache already holds it.
set -eu

GO=${GO:-go}

usage() {
	sed -n '14,23s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

check=0
patches=1
version=
name=bleve
want_name=0
for arg in "$@"; do
	if [ "$want_name" = 1 ]; then
		name=$arg
		want_name=0
		continue
	fi
	case $arg in
	--module) want_name=1 ;;
	--module=*) name=${arg#--module=} ;;
	--check) check=1 ;;
	--no-patches) patches=0 ;;
	-h | --help) usage ;;
	-*)
		echo "update-bleve.sh: unknown flag $arg" >&2
		usage
		;;
	*)
		if [ -n "$version" ]; then
			echo "update-bleve.sh: one VERSION at most, got $version and $arg" >&2
			usage
		fi
		version=$arg
		;;
	esac
done
if [ "$want_name" = 1 ]; then
	echo "update-bleve.sh: --module needs a NAME" >&2
	usage
fi
case $name in
bleve) MODULE=github.com/blevesearch/bleve/v2 ;;
goldmark) MODULE=github.com/yuin/goldmark ;;
snappy) MODULE=github.com/golang/snappy ;;
jsonschema-go) MODULE=github.com/google/jsonschema-go ;;
compress) MODULE=github.com/klauspost/compress ;;
go-sdk) MODULE=github.com/modelcontextprotocol/go-sdk ;;
ulid) MODULE=github.com/oklog/ulid/v2 ;;
zapx) MODULE=github.com/blevesearch/zapx/v17 ;;
*)
	echo "update-bleve.sh: --module takes bleve, goldmark, snappy, jsonschema-go, compress, go-sdk, ulid or zapx, got '$name'" >&2
	usage
	;;
esac
if [ "$check" = 1 ] && [ "$patches" = 0 ]; then
	echo "update-bleve.sh: --check compares the patched copy; it cannot take --no-patches" >&2
	exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=third_party/$name
# Top-level folders of the module left out of the copy: packages cortex does
# not link (2.1 MB of compress's 3.1 MB of sources are other formats).
# Building a package that needs one of them fails, naming it.
prune=
case $name in
compress) prune="dict flate gzhttp gzip lzw ossfuzz s2 snappy xpress zip zlib" ;;
go-sdk) prune="conformance examples" ;;
esac
patchdir=$root/third_party/$name-patches

required=$("$GO" list -m -f '{{.Version}}' "$MODULE")
if [ -z "$version" ]; then
	version=$required
fi
case $version in
v[0-9]*) ;;
*)
	echo "update-bleve.sh: VERSION must be a release such as v2.6.1, got $version" >&2
	exit 2
	;;
esac

# go.mod's replace directive keeps the build from downloading it, so fetch
# the release itself (from the module cache when it is already there).
if ! "$GO" mod download "$MODULE@$version"; then
	echo "update-bleve.sh: cannot download $MODULE@$version" >&2
	exit 1
fi
src=$("$GO" list -m -f '{{.Dir}}' "$MODULE@$version")
if [ -z "$src" ] || [ ! -f "$src/go.mod" ]; then
	echo "update-bleve.sh: $MODULE@$version is not in the module cache (got dir '$src')" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
new=$tmp/$name
mkdir "$new"

# The files kept: Go and assembly sources except tests, the command-line tool
# (cmd/), the integration tests (test/), test helpers (testutil/, fuzz/) and
# the folders the go command ignores (_tools/ and the like); go.mod and
# go.sum; licence, notice and author files wherever they are. Docs, test data
# and embedded data files are left out.
# The arguments, read above, now hold find's exclusions of the pruned folders.
set --
for d in $prune; do
	set -- "$@" ! -path "./$d/*"
done
(
	cd "$src"
	find . -type f \( \
		\( -name '*.go' ! -name '*_test.go' \) -o -name '*.s' \
		-o -name go.mod -o -name go.sum \
		-o -name 'LICENSE*' -o -name 'LICENCE*' -o -name 'NOTICE*' -o -name 'COPYING*' \
		-o -name 'AUTHORS*' -o -name 'CONTRIBUTORS*' \
		\) ! -path './cmd/*' ! -path './test/*' ! -path '*/testdata/*' \
		! -path './_*' ! -path './testutil/*' ! -path './fuzz/*' "$@" | LC_ALL=C sort
) >"$tmp/files"
(cd "$src" && tar -cf - -T "$tmp/files") | (cd "$new" && tar -xf -)
# The module cache is read-only; the copy is an ordinary tree.
find "$new" -type d -exec chmod 755 {} + && find "$new" -type f -exec chmod 644 {} +

# cortex's own notes about the copy travel with it.
if [ -f "$target/CORTEX-PATCHES.md" ]; then
	cp "$target/CORTEX-PATCHES.md" "$new/CORTEX-PATCHES.md"
fi

applied=0
if [ "$patches" = 1 ]; then
	for p in "$patchdir"/*.patch; do
		[ -f "$p" ] || continue
		# The ceiling keeps git apply from finding a repository around the
		# temporary folder: paths in the patch are relative to the module.
		if ! (cd "$new" && GIT_CEILING_DIRECTORIES=$tmp git apply -p1 "$p"); then
			echo "update-bleve.sh: $(basename "$p") does not apply to $MODULE@$version;" >&2
			echo "  redo it by hand (see $target/CORTEX-PATCHES.md); $target is unchanged" >&2
			exit 1
		fi
		applied=$((applied + 1))
	done
fi

# Formatted as the repository's own code is (a few upstream files predate
# //go:build lines or were generated unformatted): gofmt changes layout
# only, and the check below compares the formatted copy.
find "$new" -name '*.go' -exec "$("$GO" env GOROOT)/bin/gofmt" -w {} +

if [ "$check" = 1 ]; then
	if git diff --no-index --no-renames --exit-code --name-status -- "$target" "$new" >"$tmp/stat" 2>&1; then
		echo "$target matches $MODULE@$version with $applied patch(es)"
		exit 0
	fi
	echo "update-bleve.sh: $target differs from $MODULE@$version plus third_party/$name-patches" >&2
	echo "  (A: only in the re-created tree, D: only in $target, M: differs):" >&2
	sed "s|$new/||; s|$target/||" "$tmp/stat" >&2
	git diff --no-index --no-renames --no-ext-diff -- "$target" "$new" | head -n 200 >&2 || true
	echo "  change it only through a patch in third_party/$name-patches, then run third_party/update-bleve.sh --module $name" >&2
	exit 1
fi

rm -rf "$target"
mv "$new" "$target"
echo "$target is now $MODULE@$version$([ "$patches" = 1 ] && echo " with the patches in third_party/$name-patches" || echo ', unpatched')"
if [ "$version" != "$required" ]; then
	"$GO" mod edit -require="$MODULE@$version"
	echo "go.mod now requires $MODULE@$version; next: go mod tidy, update the version in"
	echo "$target/CORTEX-PATCHES.md and README.md, then make lint test bench"
fi
