#!/usr/bin/env bash
# Regenerates Sources/BridgeOTLP/Generated/*.pb.swift from opentelemetry-proto.
# Run by hand when the OTLP protocol version changes; the output is committed, so
# neither `swift build` nor CI ever runs protoc or swift-protobuf's plugin (a first
# build with the plugin took 9.5 min on 2 cores; the committed files cost nothing).
#
# Needs: protoc (Debian's protobuf-compiler; 3.21.12 generated the committed files),
# git, and network access to github.com. protoc-gen-swift is built from the same
# swift-protobuf version Package.swift depends on, in a scratch folder outside the repo.
#
# Usage: tools/otlp/generate.sh [PROTO_TAG] [SWIFT_PROTOBUF_TAG]
#   defaults: v1.11.0 (opentelemetry-proto) and 1.39.0 (swift-protobuf)
set -euo pipefail
proto_tag=${1:-v1.11.0}
sp_tag=${2:-1.39.0}
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
command -v protoc >/dev/null || { echo "protoc missing: apt-get install -y protobuf-compiler" >&2; exit 2; }
git clone -q --depth 1 --branch "$proto_tag" https://github.com/open-telemetry/opentelemetry-proto "$scratch/proto"
git clone -q --depth 1 --branch "$sp_tag" https://github.com/apple/swift-protobuf "$scratch/sp"
(cd "$scratch/sp" && swift build -c release --product protoc-gen-swift >/dev/null)
out="$root/Sources/BridgeOTLP/Generated"
rm -f "$out"/*.pb.swift
(cd "$scratch/proto" && protoc --plugin=protoc-gen-swift="$scratch/sp/.build/release/protoc-gen-swift" \
  --swift_out="$out" --swift_opt=FileNaming=PathToUnderscores \
  opentelemetry/proto/common/v1/common.proto \
  opentelemetry/proto/resource/v1/resource.proto \
  opentelemetry/proto/trace/v1/trace.proto \
  opentelemetry/proto/collector/trace/v1/trace_service.proto)
echo "regenerated $(ls "$out"/*.pb.swift | wc -l) files in $out (opentelemetry-proto $proto_tag, swift-protobuf $sp_tag)"
