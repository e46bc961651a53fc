import Foundation

/// When the exporter tries again, as the OTLP specification says ("OTLP/HTTP Throttling"
/// and "Failures"): 429, 502, 503 and 504 answers and failed connections are retried
/// with exponential backoff (``initialBackoff`` doubling to ``maxBackoff``, with ±20%
/// jitter), or after the `Retry-After` the collector sent (delta-seconds or an
/// HTTP-date), whichever is later; every other status is final. All attempts for one
/// batch fit in ``timeout`` seconds: a wait that would end past it is not started, and
/// the batch fails with the last reason.
public struct OTLPRetryPolicy: Sendable, Hashable {
    /// Seconds one batch may take, attempts and waits included. Default 30.
    public var timeout: Double
    /// The first wait, in seconds. Default 0.5.
    public var initialBackoff: Double
    /// The longest computed wait (a `Retry-After` may ask for more). Default 8.
    public var maxBackoff: Double

    /// Creates a policy.
    public init(timeout: Double = 30, initialBackoff: Double = 0.5, maxBackoff: Double = 8) {
        self.timeout = timeout
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// HTTP statuses that are retried.
    public static let retryableStatuses: Set<Int> = [429, 502, 503, 504]

    /// The wait before attempt `attempt + 1` (attempt counts from 1), honouring `retryAfter`.
    func delay(afterAttempt attempt: Int, retryAfter: Double?) -> Double {
        let base = Swift.min(maxBackoff, initialBackoff * Double(1 << Swift.min(attempt - 1, 20)))
        let jittered = base * Double.random(in: 0.8...1.2)
        return Swift.max(jittered, retryAfter ?? 0)
    }

    /// Reads a `Retry-After` value: delta-seconds, or an HTTP-date (RFC 9110 §10.2.3)
    /// relative to `now`. Nil when absent or unreadable.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = f.date(from: value) else { return nil }
        return Swift.max(0, date.timeIntervalSince(now))
    }
}
