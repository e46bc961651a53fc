import Histogram

/// One slow request, kept as an example.
public struct LatencySample: Sendable, Hashable {
    /// The request's correlationId.
    public var correlationId: String
    /// Its connection.
    public var connection: String
    /// Request to final response, in microseconds.
    var micros: Int64
    /// The request's record number.
    public var record: Int
    /// The session it comes from, in aggregate statistics (nil inside one session's report).
    public var source: String?
}

/// One bar of a latency histogram: requests whose latency is at most `upperMillis`
/// and above the previous bucket's bound.
public struct LatencyBucket: Sendable, Hashable {
    /// The bucket's upper bound in milliseconds (inclusive); `nil` for the last,
    /// unbounded bucket.
    var upperMillis: Int64?
    /// Requests in the bucket.
    public var count: Int
}

/// Latency statistics of one action, request to final response.
public struct ActionLatency: Sendable, Hashable {
    /// The action.
    public var action: String
    /// Requests answered.
    public var count: Int
    /// Percentiles and maximum, in microseconds (HdrHistogram, 3 significant digits).
    public var p50: Int64, p90: Int64, p99: Int64, max: Int64
    /// The slowest requests, slowest first.
    public var slowest: [LatencySample]
    /// Counts per fixed bucket (``LatencyRecorder/bucketBounds``).
    public var buckets: [LatencyBucket]
    /// The full histogram (microseconds), for merging across sessions. Empty in a
    /// fleet's per-session reports while ``samples`` holds the latencies.
    public var histogram: Histogram<UInt64>
    /// In a fleet's per-session reports (``AnalyzerConfiguration/fleetSession``): the
    /// latencies in microseconds, recorded one by one into the aggregate's histograms,
    /// while there are at most ``LatencyRecorder/maxSamples``; else empty and the
    /// histogram holds them.
    var samples: [UInt64] = []

    /// Equality ignores the histogram's internal layout, comparing the statistics.
    public static func == (a: ActionLatency, b: ActionLatency) -> Bool {
        a.action == b.action && a.count == b.count && a.p50 == b.p50 && a.p90 == b.p90 && a.p99 == b.p99
            && a.max == b.max && a.slowest == b.slowest && a.buckets == b.buckets
    }

    /// Hashes the statistics (consistent with `==`).
    public func hash(into h: inout Hasher) {
        h.combine(action); h.combine(count); h.combine(max); h.combine(slowest)
    }
}

/// Collects latencies per action in fixed memory: one HdrHistogram, fixed buckets and
/// the few slowest examples per action.
struct LatencyRecorder {
    /// Histogram bucket upper bounds in milliseconds; a last bucket holds the rest.
    static let bucketBounds: [Int64] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000,
                                        30_000, 60_000, 120_000, 300_000]

    /// A new histogram for one action: sized for 2^24 µs (16.8 s) from the start and
    /// auto-resizing past it: growing one bucket at a time from the smallest size
    /// (hdrhistogram-swift appends through an unspecialized generic path) was 58% of the
    /// CPU of a fleet of small sessions. 15,360 counts, 123 kB.
    static func newHistogram() -> Histogram<UInt64> {
        var h = Histogram<UInt64>(highestTrackableValue: 1 << 24, numberOfSignificantValueDigits: .three)
        h.autoResize = true
        return h
    }

    /// The empty histogram of a fleet session's action whose latencies are in `samples`:
    /// one for all (copy on write), not 15,360 counts per action and session.
    static let placeholderHistogram = Histogram<UInt64>(highestTrackableValue: 2, numberOfSignificantValueDigits: .three)

    /// Latencies a fleet session keeps per action as a list before it makes a histogram.
    static let maxSamples = 1_024

    struct PerAction {
        /// Nil while the latencies are in `samples` (a fleet session) or ``pending``, or
        /// none were recorded.
        var storedHistogram: Histogram<UInt64>?
        var samples: [UInt64] = []
        /// Latencies on their way into ``storedHistogram``, at most ``pendingLimit``:
        /// recorded together, the counters they land on (a cache miss each: 15,360 counts
        /// per action, out of cache between two answers) are fetched side by side, where
        /// one at a time each answer waited for its own (2% of `analyze` on a session of
        /// small messages). Readers see them (``histogram``, ``hasHistogram``).
        var pending: [UInt64] = []
        /// The most latencies ``pending`` holds.
        static let pendingLimit = 64
        var buckets = [Int](repeating: 0, count: LatencyRecorder.bucketBounds.count + 1)
        var slowest: [LatencySample] = []
        var count = 0

        /// The histogram of every latency recorded (samples and pending ones included).
        var histogram: Histogram<UInt64> {
            var h = histogramWithPending ?? LatencyRecorder.newHistogram()
            for v in samples { _ = h.record(v) }
            return h
        }

        /// Whether latencies went to the histogram (stored or pending) rather than to
        /// `samples`.
        var hasHistogram: Bool { storedHistogram != nil || !pending.isEmpty }

        /// ``storedHistogram`` with the ``pending`` latencies in it; nil when neither has any.
        var histogramWithPending: Histogram<UInt64>? {
            guard !pending.isEmpty else { return storedHistogram }
            var h = storedHistogram ?? LatencyRecorder.newHistogram()
            for v in pending { _ = h.record(v) }
            return h
        }

        /// Records one latency: into ``pending``, and the pending ones into the
        /// histogram (made on first use) when there are ``pendingLimit`` of them.
        mutating func record(_ micros: UInt64) {
            if pending.capacity < Self.pendingLimit { pending.reserveCapacity(Self.pendingLimit) }
            pending.append(micros)
            if pending.count >= Self.pendingLimit { flushPending() }
        }

        /// Records the ``pending`` latencies into the histogram (made on first use), in
        /// place through optional chaining. (Testing `storedHistogram == nil` copies the
        /// histogram, a retain and a release of its counts: once per ``pendingLimit``
        /// latencies here, not once per latency as before they waited.)
        mutating func flushPending() {
            guard !pending.isEmpty else { return }
            if storedHistogram == nil { storedHistogram = LatencyRecorder.newHistogram() }
            for v in pending { _ = storedHistogram?.record(v) }
            pending.removeAll(keepingCapacity: true)
        }

        /// Records one latency; with `sampling`, in `samples` up to ``LatencyRecorder/maxSamples``.
        mutating func add(_ sample: LatencySample, keepSlowest: Int, sampling: Bool = false) {
            add(micros: sample.micros, sample, keepSlowest: keepSlowest, sampling: sampling)
        }

        /// ``add(_:keepSlowest:sampling:)`` of a latency of `micros`, the sample made only
        /// when it is kept among the slowest (its two strings are not retained per answer).
        mutating func add(micros: Int64, _ sample: @autoclosure () -> LatencySample, keepSlowest: Int, sampling: Bool = false) {
            if sampling && !hasHistogram && samples.count < LatencyRecorder.maxSamples {
                samples.append(UInt64(micros))
            } else {
                if !samples.isEmpty {
                    for v in samples { record(v) }
                    samples = []
                }
                record(UInt64(micros))
            }
            count += 1
            let ms = (micros + 999) / 1_000
            buckets[LatencyRecorder.bucketBounds.firstIndex { ms <= $0 } ?? LatencyRecorder.bucketBounds.count] += 1
            // The last one's latency read in place: `slowest.last!` copied the sample.
            if keepSlowest > 0, slowest.count < keepSlowest || micros > slowest[slowest.count - 1].micros {
                let at = slowest.firstIndex { $0.micros < micros } ?? slowest.count
                slowest.insert(sample(), at: at)
                if slowest.count > keepSlowest { slowest.removeLast() }
            }
        }
    }

    var actions: [String: PerAction] = [:]
    /// Where each known action is in ``actions`` (valid until a key is inserted).
    private var indexByKind = ActionMemory<Dictionary<String, PerAction>.Index>()
    let keepSlowest: Int
    let maxActions: Int

    /// Where actions past `maxActions` are counted.
    static let otherActions = "(other actions)"

    /// A fleet session's recorder: latencies kept as lists (``ActionLatency/samples``)
    /// and no percentiles computed.
    let sampling: Bool

    init(keepSlowest: Int, maxActions: Int = 1_000, sampling: Bool = false) {
        self.keepSlowest = keepSlowest
        self.maxActions = maxActions
        self.sampling = sampling
    }

    /// Records one request's latency (negative values, from clock skew, count as 0).
    mutating func record(action: String, kind: ActionKind = .other, nanos: Int64, correlationId: String, connection: String,
                         record: Int) {
        let micros = Swift.max(0, nanos / 1_000)
        // Mutated in place through the dictionary, so the histogram is never copied. A
        // known action's place is remembered (no hashing); inserting a key moves places.
        let known = kind == .other ? nil : indexByKind[action, kind]
        if let i = known ?? actions.index(forKey: action) {
            actions.values[i].add(micros: micros, LatencySample(correlationId: correlationId, connection: connection, micros: micros, record: record),
                                  keepSlowest: keepSlowest, sampling: sampling)
            if kind != .other, known == nil { indexByKind[action, kind] = i }
            return
        }
        indexByKind.removeAll()
        let key = actions.count < maxActions ? action : Self.otherActions
        actions[key, default: PerAction()].add(micros: micros, LatencySample(correlationId: correlationId, connection: connection, micros: micros,
                                                                             record: record),
                                               keepSlowest: keepSlowest, sampling: sampling)
    }

    /// The statistics, sorted by action. A sampling recorder's (a fleet session's) have
    /// no percentiles (0): nobody prints them, the fleet merges the samples.
    func report() -> [ActionLatency] {
        actions.keys.sorted().map { name in
            sampling ? Self.samples(action: name, actions[name]!) : Self.statistics(action: name, actions[name]!)
        }
    }

    static func buckets(_ a: PerAction) -> [LatencyBucket] {
        var buckets: [LatencyBucket] = []
        buckets.reserveCapacity(a.buckets.count)
        for (i, c) in a.buckets.enumerated() {
            buckets.append(LatencyBucket(upperMillis: i < bucketBounds.count ? bucketBounds[i] : nil, count: c))
        }
        return buckets
    }

    static func statistics(action: String, _ a: PerAction) -> ActionLatency {
        let h = a.histogram
        let p = percentiles(h, [50, 90, 99])
        return ActionLatency(action: action, count: a.count,
                             p50: Int64(p[0]), p90: Int64(p[1]),
                             p99: Int64(p[2]), max: Int64(h.maxRecorded),
                             slowest: a.slowest, buckets: buckets(a), histogram: h)
    }

    /// A fleet session's statistics: count, maximum, buckets, slowest and the samples
    /// (or the histogram past ``maxSamples``), no percentiles.
    static func samples(action: String, _ a: PerAction) -> ActionLatency {
        let h = a.histogramWithPending ?? placeholderHistogram
        let max = Swift.max(a.samples.max() ?? 0, h.totalCount > 0 ? h.maxRecorded : 0)
        var l = ActionLatency(action: action, count: a.count, p50: 0, p90: 0, p99: 0, max: Int64(max),
                              slowest: a.slowest, buckets: buckets(a), histogram: h)
        l.samples = a.samples
        return l
    }

    /// What `valueAtPercentile` returns for each of `levels` (ascending, 0 < level < 100),
    /// in one pass through hdrhistogram-swift's inlinable iterator, which is specialized
    /// here: `valueAtPercentile` runs as unspecialized generic code, one pass per level
    /// (60% of the CPU of a fleet of small sessions). Held to it by `FleetTests`.
    static func percentiles(_ h: Histogram<UInt64>, _ levels: [Double]) -> [UInt64] {
        var out = [UInt64](repeating: 0, count: levels.count)
        guard h.totalCount > 0 else { return out }
        let targets = levels.map { level -> UInt64 in
            let requested = Swift.min(Swift.max(level.nextDown, 0.0), 100.0)
            return Swift.max(1, UInt64((requested * Double(h.totalCount) / 100.0).rounded(.up)))
        }
        var next = 0
        for v in h.allValues() {
            while next < targets.count && v.totalCountToThisValue >= targets[next] {
                out[next] = Swift.max(Swift.min(v.value, h.maxRecorded), h.min)
                next += 1
            }
            if next == targets.count { break }
        }
        return out
    }

    /// Merges several sessions' statistics per action (histograms added, buckets summed,
    /// slowest examples re-ranked).
    static func merge(_ reports: [AnalysisReport], keepSlowest: Int) -> [ActionLatency] {
        var merged: [String: PerAction] = [:]
        for r in reports {
            for var l in r.latency {
                for i in l.slowest.indices where l.slowest[i].source == nil { l.slowest[i].source = r.source }
                merged[l.action, default: PerAction()].merge(l, keepSlowest: keepSlowest)
            }
        }
        return merged.keys.sorted().map { statistics(action: $0, merged[$0]!) }
    }
}

extension LatencyRecorder.PerAction {
    /// Adds one session's statistics of the action: its histogram added, or its samples
    /// recorded one by one (a fleet session's), buckets summed, slowest re-ranked.
    mutating func merge(_ l: ActionLatency, keepSlowest: Int) {
        if l.histogram.totalCount > 0 {
            if storedHistogram == nil { storedHistogram = LatencyRecorder.newHistogram() }
            storedHistogram!.add(l.histogram)
        }
        for v in l.samples { record(v) }
        count += l.count
        for (i, b) in l.buckets.enumerated() where i < buckets.count { buckets[i] += b.count }
        slowest = Array((slowest + l.slowest).sorted { $0.micros > $1.micros }.prefix(keepSlowest))
    }
}
