import Foundation

/// The tap's bounded queue and background writer (docs/TAP.md §3). Callers only take a
/// lock to append a line; the writer thread wakes every `writeIntervalMilliseconds`,
/// takes what is queued and writes it with `write(2)`, so a line reaches the file within
/// that interval and survives a crash of the app.
///
/// `@unchecked Sendable`: every mutable member is guarded by `condition` (an
/// `NSCondition`, because `Synchronization.Mutex` needs iOS 18), except the file state,
/// which only the writer thread touches.
final class TapWriter: @unchecked Sendable {
    private let configuration: TapConfiguration
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [TapQueued] = []
    private var queuedBytes = 0
    private var tallies: [TapDropTally] = []
    private var enqueued = 0
    private var written = 0
    private var closing = false
    private var finished = false
    // The writer thread's own.
    private var file: TapFileSet
    private let redactor: TapRedactor?

    init(configuration: TapConfiguration) {
        self.configuration = configuration
        self.file = TapFileSet(configuration: configuration)
        self.redactor = configuration.keepSensitiveFields ? nil : TapRedactor()
        let thread = Thread { [self] in run() }
        thread.name = "bridgescope-tap-writer"
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Queues a message (its line is built, redaction included, on the writer thread), or
    /// counts it as dropped when the queue is full or it is too long. `size` is the
    /// message's byte count.
    func enqueue(_ message: TapPendingMessage, size: Int, time: Int64, connection: String) {
        condition.lock()
        defer { condition.unlock() }
        if closing { return }
        if size > configuration.maxLineBytes {
            tally("message larger than the limit of \(configuration.maxLineBytes) bytes", bytes: size, time: time, connection: connection)
        } else if queue.count >= configuration.maxQueueLines || queuedBytes + size > configuration.maxQueueBytes {
            tally("tap queue full", bytes: size, time: time, connection: connection)
        } else {
            if !tallies.isEmpty { appendDropLines() }
            queue.append(TapQueued(bytes: [], time: time, connection: connection, message: message))
            queuedBytes += size
            enqueued += 1
        }
    }

    /// Blocks until every line queued before the call is written (or failed).
    func flush() {
        condition.lock()
        if !tallies.isEmpty { appendDropLines() }
        let target = enqueued
        condition.broadcast()
        while written < target && !finished { condition.wait() }
        condition.unlock()
    }

    /// Writes what is queued, the pending drop line, closes the file and stops the thread.
    func close() {
        condition.lock()
        if !tallies.isEmpty { appendDropLines() }
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    // Called with the lock held.
    private func tally(_ reason: String, bytes: Int, time: Int64, connection: String) {
        if let k = tallies.firstIndex(where: { $0.reason == reason }) {
            tallies[k].count += 1
            tallies[k].bytes += bytes
            tallies[k].lastTime = time
        } else {
            tallies.append(TapDropTally(reason: reason, connection: connection, firstTime: time, lastTime: time, count: 1, bytes: bytes))
        }
    }

    /// The line of a queued message: built here, off the caller's thread.
    private func render(_ entry: TapQueued) -> TapQueued {
        guard let m = entry.message else { return entry }
        var out = entry
        out.message = nil
        out.bytes = m.line(redactor: redactor)
        return out
    }

    // Called with the lock held: a drop line that could not be written is counted again.
    private func restore(_ d: TapDropTally) {
        if let k = tallies.firstIndex(where: { $0.reason == d.reason }) {
            tallies[k].count += d.count
            tallies[k].bytes += d.bytes
            tallies[k].firstTime = min(tallies[k].firstTime, d.firstTime)
            tallies[k].lastTime = max(tallies[k].lastTime, d.lastTime)
        } else {
            tallies.append(d)
        }
    }

    // Called with the lock held: the drop lines go before the next stored line.
    private func appendDropLines() {
        for t in tallies {
            let line = TapLine.drop(t)
            queue.append(TapQueued(bytes: line, time: t.firstTime, connection: t.connection, drop: t))
            queuedBytes += line.count
            enqueued += 1
        }
        tallies.removeAll()
    }

    private func run() {
        let interval = Double(min(max(configuration.writeIntervalMilliseconds, 1), 250)) / 1000
        while true {
            condition.lock()
            if queue.isEmpty && !closing { _ = condition.wait(until: Date(timeIntervalSinceNow: interval)) }
            let batch = queue
            let stop = closing
            queue.removeAll(keepingCapacity: true)
            queuedBytes = 0
            condition.unlock()

            let failures = file.write(batch.map(render))
            condition.lock()
            written += batch.count
            for (entry, reason) in failures {
                if let d = entry.drop {
                    restore(d)
                } else {
                    tally("write failed: \(reason)", bytes: entry.bytes.count, time: entry.time, connection: entry.connection)
                }
            }
            if stop && queue.isEmpty {
                // Lines that could not be written are accounted for in one last attempt.
                if !tallies.isEmpty {
                    appendDropLines()
                    let last = queue
                    queue.removeAll()
                    condition.unlock()
                    _ = file.write(last)
                    condition.lock()
                    written += last.count
                }
                file.close()
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// A line waiting to be written.
struct TapQueued: Sendable {
    /// The line, LF included.
    var bytes: [UInt8]
    /// Its message's time (epoch ms).
    var time: Int64
    /// Its connection.
    var connection: String
    /// For a drop line: what it accounts for.
    var drop: TapDropTally? = nil
    /// For a message whose line is not built yet.
    var message: TapPendingMessage? = nil
}

/// A message as the caller handed it over; the writer thread makes its line.
struct TapPendingMessage: Sendable {
    /// What was handed over.
    var body: TapBody
    /// `w2h` or `h2w`.
    var direction: String
    /// Its connection.
    var connection: String
    /// When (epoch ms).
    var time: Int64

    /// Its tap log line, redacted by `redactor` when there is one.
    func line(redactor: TapRedactor?) -> [UInt8] {
        switch body {
        case .text(let s):
            var bytes = Array(s.utf8)
            if let redactor { bytes = redactor.redact(bytes).bytes }
            return TapLine.message(time: time, direction: direction, connection: connection, text: bytes, rawJSON: false)
        case .json(var bytes):
            if let redactor { bytes = redactor.redact(bytes).bytes }
            return TapLine.message(time: time, direction: direction, connection: connection, text: bytes, rawJSON: true)
        case .unrecordable(let reason):
            return TapLine.unrecordable(time: time, direction: direction, connection: connection, reason: reason)
        }
    }
}
