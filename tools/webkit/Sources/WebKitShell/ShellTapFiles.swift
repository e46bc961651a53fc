import BridgeTap
import Foundation

/// `--tap-dir DIR`: the two taps written as an app built on the seeds' SDK writes them
/// (docs/TAP.md §5, "iOS with the seeds' SDK"), for `bridgescope record --tap` to import:
/// - `DIR/web.ndjson`: the page's JavaScript tap lines, as its own script message handler
///   receives them (one complete line per message, written as it comes);
/// - `DIR/native/`: the `BridgeTap` library at the host's delegate
///   (`bridgeHost(_:didReceive:)`), which sees each message the host received and decoded,
///   and nothing the host sends (the SDK's delegate has no hook for that).
///
/// Main thread only. `BridgeTap` never blocks and never throws: a file it cannot write is
/// reported once (``failure``), and the run then exits 2, as a failed `--record` does.
package final class ShellTapFiles {
    /// The connection ids: `<view>@web` and `<view>@native`.
    package let webConnection: String, nativeConnection: String
    private let tap: BridgeTap
    private let native: TapConnection
    private let webLog: FileHandle
    private let errors = TapErrors()
    private var webFailure: String?

    package init(directory: String, view: String = "webview-1") throws(ShellError) {
        webConnection = view + "@web"
        nativeConnection = view + "@native"
        let webPath = directory + "/web.ndjson"
        do {
            try FileManager.default.createDirectory(atPath: directory + "/native", withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: webPath, contents: nil), let handle = FileHandle(forWritingAtPath: webPath) else {
                throw ShellError("cannot create \(webPath): check that \(directory) is writable")
            }
            webLog = handle
        } catch let error as ShellError {
            throw error
        } catch {
            throw ShellError("cannot create the tap folder \(directory): \(error.localizedDescription)")
        }
        var configuration = TapConfiguration(directory: directory + "/native")
        configuration.onError = { [errors] in errors.note($0.message) }
        tap = BridgeTap(configuration)
        native = tap.connection(nativeConnection)
    }

    /// A message the host received (the delegate's view); the host's sends are not seen.
    package func native(_ o: NativeObservation) {
        guard o.direction == "w2h" else { return }
        native.webToHost(String(decoding: o.bytes, as: UTF8.self))
    }

    /// One line of the page's tap, as the app's handler writes it.
    package func webLine(_ line: [UInt8]) {
        guard webFailure == nil else { return }
        do {
            try webLog.write(contentsOf: line + [0x0A])
        } catch {
            webFailure = "cannot write the page's tap lines: \(error.localizedDescription)"
        }
    }

    /// Writes what is queued and closes both files.
    package func finish() {
        tap.flush()
        tap.close()
        try? webLog.close()
    }

    /// The first write failure of either tap, if any.
    package var failure: String? { webFailure ?? errors.first }
}

/// The first error `BridgeTap` reported (from its writer thread).
private final class TapErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var message: String?

    func note(_ m: String) {
        lock.lock()
        if message == nil { message = m }
        lock.unlock()
    }

    var first: String? {
        lock.lock()
        defer { lock.unlock() }
        return message
    }
}
