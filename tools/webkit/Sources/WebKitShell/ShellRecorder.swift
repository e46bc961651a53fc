import BridgeArchive
import Foundation

/// `--record OUT.bsz`: one archive holding the session seen from both sides of the bridge
/// (docs/FORMAT.md §4, two-sided connections):
/// - `<view>@web`: the JavaScript tap in the page (tools/taps/js/bridge-tap.js), injected
///   with the bootstrap script and sending its lines to a handler of its own;
/// - `<view>@native`: the native tap (``NativeObservation``), where an app built on the
///   seeds' SDK can put it.
///
/// Main thread only. The archive is flushed at least every 200 ms (the writer's policy,
/// driven by a main-loop timer), so a killed shell leaves every complete record readable.
/// A write error (a full disk) stops the recording, is printed once, and makes the shell
/// exit 2 at the end: the archive then ends where the error happened.
package final class ShellRecorder {
    /// The connection ids of the one web view.
    package let webConnection: String, nativeConnection: String
    private let writer: ArchiveWriter
    private var parser = TapLogParser()
    private(set) package var failure: String?
    private let path: String

    package init(path: String, url: String, view: String = "webview-1", toolVersion: String) throws(ShellError) {
        self.path = path
        webConnection = view + "@web"
        nativeConnection = view + "@native"
        let header = ArchiveHeader(source: "webkit-shell:\(url)", host: ProcessInfo.processInfo.hostName,
                                   startTime: NativeTapDelegate.now(), toolVersion: toolVersion)
        do {
            writer = try ArchiveWriter(path: path, header: header)
        } catch {
            throw ShellError("cannot write the archive \(path): \(error)")
        }
        let now = NativeTapDelegate.now()
        write(ArchiveEvent(time: now, kind: .open, connection: webConnection,
                           reason: "web side of \(view): the JavaScript tap in the page (\(url))"))
        write(ArchiveEvent(time: now, kind: .open, connection: nativeConnection,
                           reason: "native side of \(view): the Swift tap at the host's delegate"))
        MainThread.every(milliseconds: 100) { [weak self] in
            guard let self, !self.writer.isFinished, self.failure == nil else { return false }
            do { try self.writer.flushIfDue() } catch { self.fail(error) }
            return true
        }
    }

    /// A message the native tap saw.
    package func native(_ o: NativeObservation) {
        guard failure == nil else { return }
        do {
            try writer.append(time: o.time, direction: ArchiveDirection(rawValue: o.direction), connection: nativeConnection,
                              payload: o.bytes)
        } catch { fail(error) }
    }

    /// One line of the JavaScript tap (docs/TAP.md §1).
    package func webLine(_ line: [UInt8]) {
        guard failure == nil else { return }
        let now = NativeTapDelegate.now()
        for entry in parser.feed(line + [0x0A]) {
            switch entry {
            case .message(let m):
                do {
                    try writer.append(time: m.time, direction: m.direction, connection: webConnection, payload: m.payload)
                } catch { fail(error) }
            case .event(let e):
                var event = e.event
                event.connection = webConnection
                write(event)
            case .error(let e):
                write(ArchiveEvent(time: now, kind: .error, connection: webConnection, bytes: line.count,
                                   reason: "a bad line from the page's tap (\(e.reason))"
                                       + (e.messageImported ? "; its message was recorded" : "; not recorded")))
            }
        }
    }

    /// Writes the close events and the trailer.
    package func finish(reason: String) {
        let now = NativeTapDelegate.now()
        write(ArchiveEvent(time: now, kind: .close, connection: webConnection, reason: reason))
        write(ArchiveEvent(time: now, kind: .close, connection: nativeConnection, reason: reason))
        guard failure == nil else { return }
        do { try writer.finish() } catch { fail(error) }
    }

    private func write(_ event: ArchiveEvent) {
        guard failure == nil else { return }
        do { try writer.append(event) } catch { fail(error) }
    }

    private func fail(_ error: any Error) {
        guard failure == nil else { return }
        failure = "recording to \(path) failed: \(error); the archive ends where the error happened"
        FileHandle.standardError.write(Data("bridgescope-webkit: \(failure!)\n".utf8))
    }
}
