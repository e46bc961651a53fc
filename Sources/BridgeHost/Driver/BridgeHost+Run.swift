import BridgeClock
import BridgeProtocol

extension BridgeHost {
    /// Serves the web side over `transport` until it closes and every request in progress
    /// is answered (scheduled events not yet due are dropped then). Sends `host.ready`
    /// first. Handlers, timers and delegate calls run as child tasks; cancelling the calling
    /// task stops them all. A host runs once.
    public func run(transport: some HostTransport) async {
        let first = core.withLock { c -> Bool in
            if c.running { return false }
            c.running = true
            return true
        }
        guard first else {
            logger.error("run(transport:) called twice; a host runs once", metadata: ["event": "misuse"])
            return
        }
        start()
        await withTaskGroup(of: Void.self) { outer in
            outer.addTask {
                var failed = false
                for await message in self.outbound.stream where !failed {
                    do { try await transport.send(message) } catch {
                        failed = true
                        self.logger.error("the transport refused a message: \(error); later messages are dropped",
                                          metadata: ["event": "transport-failed"])
                    }
                }
            }
            outer.addTask { await self.deliverNotes() }
            outer.addTask {
                for await message in transport.incoming { self.receive(message) }
                self.endOfInput()
            }
            await withTaskGroup(of: Void.self) { work in
                for await job in self.jobs.stream {
                    work.addTask { await self.run(job) }
                }
                work.cancelAll()
            }
            outbound.continuation.finish()
            notes.continuation.finish()
        }
        (transport as? MemoryTransport)?.finishSending()
    }

    /// The web side closed: finish once nothing is pending.
    func endOfInput() {
        let logs = core.withLock { c -> [HostLogEntry] in
            c.inputEnded = true
            return perform([.log(HostLogEntry(.info, "input-ended",
                "the web side closed; \(c.machine.pendingCount) request(s) still in progress"))], &c)
        }
        emit(logs)
    }

    func run(_ job: Job) async {
        switch job {
        case .slot(let kind, let token, let request, let handler):
            let result = await handler(request)
            let now = clock.milliseconds
            mutate { m in
                m.complete(token, capture: result, now: now)
            }
            core.withLock { c in
                if c.completions[kind]?.token == token { c.completions[kind] = nil }
            }
        case .custom(let token, let request, let handler):
            await handler(request, BridgeResponder(host: self, token: token, request: request))
        case .configuration(let token, let request, let handler):
            await handler.handle(request: request, responder: BridgeResponder(host: self, token: token, request: request))
        case .timer(let id, let at):
            do { try await clock.sleep(untilMilliseconds: at) } catch { return }
            let now = clock.milliseconds
            mutate { $0.timerFired(id, now: now) }
        }
    }

    func deliverNotes() async {
        for await note in notes.stream {
            let delegate = core.withLock { $0.delegate.value }
            switch note {
            case .received(let e): await delegate?.bridgeHost(self, didReceive: e)
            case .rejected(let r): await delegate?.bridgeHost(self, didReject: r)
            case .unhandled(let e, let token):
                let disposition = await delegate?.bridgeHost(self, unhandledRequest: e) ?? .answerUnsupported
                let now = clock.milliseconds
                mutate { $0.delegateFinished(token, keepPending: disposition == .keepPending, now: now) }
            }
        }
    }
}
