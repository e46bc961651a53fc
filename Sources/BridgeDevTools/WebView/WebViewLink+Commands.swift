import BridgeCapture
import BridgeJSON

extension WebViewLink {
    var errorKind: CaptureError.Kind { spec.kind == .cdp ? .cdp : .webkit }

    /// Sends `method` now (commands leave in the order of the calls) and gives a task
    /// that waits, at most ``commandTimeout``, for its answer's `result`. The task throws
    /// ``CaptureError`` when the page refuses it, the link failed, or no answer came.
    func enqueue(_ method: String, _ params: JSONValue = [:]) -> Task<JSONObject, any Error> {
        let kind = errorKind
        let (answer, waiter) = AsyncThrowingStream<JSONObject, any Error>.makeStream()
        let sent = state.withLock { s -> Result<Int, CaptureError> in
            if let f = s.failure { return .failure(CaptureError(kind, f)) }
            guard let (id, bytes) = s.channel.command(method, params) else {
                return .failure(CaptureError(kind, "\(method): the page's target is not known yet"))
            }
            s.waiters[id] = waiter
            outbound.yield(bytes)
            return .success(id)
        }
        let timeout = commandTimeout
        return Task { [weak self] in
            let id = try sent.get()
            let expiry = Task { [weak self] in
                try? await Task.sleep(for: .seconds(timeout))
                guard !Task.isCancelled, let self else { return }
                self.state.withLock { $0.waiters.removeValue(forKey: id) }?
                    .finish(throwing: CaptureError(kind, "\(method): no answer from \(self.spec) within \(Int(timeout)) s"))
            }
            defer { expiry.cancel() }
            for try await result in answer { return result }
            throw CaptureError(kind, self?.failure ?? "\(method): the link closed")
        }
    }

    /// Sends `method` and waits for its answer's `result`.
    func command(_ method: String, _ params: JSONValue = [:]) async throws(CaptureError) -> JSONObject {
        do {
            return try await enqueue(method, params).value
        } catch let error as CaptureError {
            throw error
        } catch {
            throw CaptureError(errorKind, "\(method): \(error)")
        }
    }

    /// The value of a `Runtime.evaluate` answer as text (nil when it is not a string).
    /// Throws when the expression threw in the page.
    func value(of result: JSONObject) throws(CaptureError) -> String? {
        let value = result["result"]?.objectValue
        let thrown = result["wasThrown"]?.boolValue == true || result["exceptionDetails"] != nil
        if thrown {
            let text = value?["description"]?.stringValue ?? value?["value"]?.stringValue
                ?? result["exceptionDetails"]?.objectValue?["text"]?.stringValue ?? "an exception"
            throw CaptureError(errorKind, "the page threw: \(text)")
        }
        return value?["value"]?.stringValue
    }

    /// Evaluates `expression` in the page's current document and returns its value as text.
    func evaluate(_ expression: String) async throws(CaptureError) -> String? {
        try value(of: try await command("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true]))
    }

    /// Waits until WebKit has named the page target, or its socket is known to be the
    /// page itself (DevTools: at once), at most `seconds`.
    func waitReady(seconds: Double) async throws(CaptureError) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            tick()
            let (ready, failure) = state.withLock { ($0.connected && $0.channel.isReady, $0.failure) }
            if let failure { throw CaptureError(errorKind, failure) }
            if ready { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        throw CaptureError(errorKind, "\(spec): the page's socket did not become usable within \(Int(seconds)) s"
            + (spec.kind == .webkit ? " (it named no target, and did not answer a command as the page itself)" : ""))
    }

    /// Probes the page every 20 ms until `done` holds (evaluations that fail while a
    /// document is being replaced are retried), at most `seconds`.
    func settle(seconds: Double = 10, what: String, _ done: (WebViewScript.Probe) -> Bool) async throws(CaptureError) -> WebViewScript.Probe {
        let deadline = ContinuousClock.now + .seconds(seconds)
        var last = "no answer"
        while ContinuousClock.now < deadline {
            if let failure = failure { throw CaptureError(errorKind, failure) }
            do {
                if let text = try await evaluate(WebViewScript.probe), let p = WebViewScript.probe(text) {
                    if done(p) { return p }
                    last = "\(p.href), \(p.ready ? "loaded" : "loading")"
                }
            } catch {
                last = error.message
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        throw CaptureError(errorKind, "\(spec): \(what) did not happen within \(Int(seconds)) s (last seen: \(last))")
    }
}
