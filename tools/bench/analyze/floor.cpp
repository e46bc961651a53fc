// A floor for `make bench-analyze` (docs/PERFORMANCE.md, "Analysis"): the least work a
// reader of a session archive does with the fastest JSON parser we know of, in C++, one
// thread. Not part of bridgescope; a baseline measured in the same run.
//
//   floor FILE parse   decompress (libzstd, streaming), split lines, parse each line
//                      with simdjson's DOM parser (a full RFC 8259 validation of the
//                      record line and the envelope inside it; simdjson keeps repeated
//                      keys, so it checks less than bridgescope's parser);
//   floor FILE pair    the same, then read the fields the analyzer pairs on (`t`, `dir`,
//                      `conn`, `msg.correlationId`, `msg.type`, `msg.payload.action`) and
//                      pair requests with final responses per connection in a hash map.
//                      No other rule, no journey view, no latency histogram, no report.
//
// Prints the counts; exit 1 on a read or decompression error or a truncated archive (a
// last frame or line left incomplete). Lines longer than the buffer grow it (an
// image-heavy session's lines are up to ~700 KB).
#include <simdjson.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace {

struct Counts {
    long lines = 0, records = 0, requests = 0, responses = 0, paired = 0, invalid = 0;
};

struct Pairing {
    std::unordered_map<std::string, int> connections;
    std::vector<std::unordered_map<std::string, int64_t>> open;

    void message(Counts &n, int64_t t, std::string_view conn, std::string_view type, std::string_view id,
                 std::string_view status) {
        auto c = connections.find(std::string(conn));
        int slot;
        if (c == connections.end()) {
            slot = int(open.size());
            connections.emplace(std::string(conn), slot);
            open.emplace_back();
        } else {
            slot = c->second;
        }
        if (type == "request") {
            n.requests++;
            open[slot].emplace(std::string(id), t);
        } else if (type == "response") {
            n.responses++;
            if (status == "acknowledged") return;
            auto o = open[slot].find(std::string(id));
            if (o != open[slot].end()) {
                n.paired++;
                open[slot].erase(o);
            }
        }
    }
};

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[2], "parse") != 0 && strcmp(argv[2], "pair") != 0)) {
        fprintf(stderr, "usage: floor FILE parse|pair\n");
        return 2;
    }
    const bool pair = strcmp(argv[2], "pair") == 0;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    std::vector<char> in(ZSTD_DStreamInSize());
    const size_t step = 1 << 20;
    // The unfinished line of the last output, then the next output; simdjson reads up to
    // SIMDJSON_PADDING bytes past a line's end, so the buffer keeps that much spare.
    std::vector<char> buf(step * 2 + simdjson::SIMDJSON_PADDING);
    size_t have = 0;
    simdjson::dom::parser parser;
    Counts n;
    Pairing pairing;
    auto line = [&](const char *p, size_t len) {
        n.lines++;
        simdjson::dom::element doc;
        if (parser.parse(p, len, false).get(doc)) {
            n.invalid++;
            return;
        }
        if (!pair) return;
        int64_t t;
        std::string_view conn, type, id, status;
        simdjson::dom::element msg;
        if (doc["t"].get(t) || doc["conn"].get(conn) || doc["msg"].get(msg)) return;  // the header, an event line
        n.records++;
        if (msg["correlationId"].get(id) || msg["type"].get(type)) return;
        if (msg["payload"]["status"].get(status)) status = "";
        pairing.message(n, t, conn, type, id, status);
    };
    size_t r, pendingFrame = 0;  // ZSTD_decompressStream's last answer: 0 once a frame is complete
    while ((r = fread(in.data(), 1, in.size(), f)) > 0) {
        ZSTD_inBuffer ib = {in.data(), r, 0};
        while (ib.pos < ib.size) {
            if (have + step + simdjson::SIMDJSON_PADDING > buf.size()) buf.resize(have + step + simdjson::SIMDJSON_PADDING);
            ZSTD_outBuffer ob = {buf.data() + have, step, 0};
            size_t rc = ZSTD_decompressStream(ds, &ob, &ib);
            if (ZSTD_isError(rc)) {
                fprintf(stderr, "%s: zstd: %s\n", argv[1], ZSTD_getErrorName(rc));
                return 1;
            }
            pendingFrame = rc;
            const char *b = buf.data();
            size_t end = have + ob.pos, start = 0;
            while (const char *nl = static_cast<const char *>(memchr(b + start, '\n', end - start))) {
                size_t len = size_t(nl - (b + start));
                line(b + start, len);
                start += len + 1;
            }
            memmove(buf.data(), b + start, end - start);
            have = end - start;
        }
    }
    if (ferror(f)) {
        perror(argv[1]);
        return 1;
    }
    if (pendingFrame != 0) {
        fprintf(stderr, "%s: truncated: the last zstd frame is incomplete\n", argv[1]);
        return 1;
    }
    if (have != 0) {
        fprintf(stderr, "%s: truncated: the last line (%zu bytes) has no newline\n", argv[1], have);
        return 1;
    }
    printf("lines %ld records %ld requests %ld responses %ld paired %ld invalid %ld\n", n.lines, n.records, n.requests,
           n.responses, n.paired, n.invalid);
    ZSTD_freeDStream(ds);
    return 0;
}
