import Foundation

/// The script injected at document start, before the page's first script.
///
/// It is what an app built on the seeds' SDK would pass as
/// `BridgeConfiguration.bootstrapScript`: the SDK's default bootstrap (the
/// `window.GBGBridge` namespace and a no-op `receive`), then, when recording, the
/// JavaScript tap (tools/taps/js/bridge-tap.js) configured to send its lines to a
/// script message handler of its own (``tapHandler``), since the SDK's host owns
/// `gbgBridge`.
package enum BootstrapScript {
    /// The SDK's default bootstrap (seed 004, "Bootstrap Script").
    package static let sdkDefault = """
        window.GBGBridge = window.GBGBridge || {};
        window.GBGBridge.receive = window.GBGBridge.receive || function(){};
        """

    /// The handler the tap's lines go to.
    package static let tapHandler = "bridgescopeTap"

    /// The bootstrap, with the tap when `tapSource` is given. The tap keeps every field
    /// (the archive is the user's own; the recorder does not redact).
    package static func script(tapSource: String?, connection: String) -> String {
        guard let tapSource else { return sdkDefault }
        let conn = String(decoding: try! JSONSerialization.data(withJSONObject: connection, options: .fragmentsAllowed), as: UTF8.self)
        return sdkDefault + "\n" + tapSource + """

            ;(function () {
              var handlers = window.webkit && window.webkit.messageHandlers;
              var channel = handlers && handlers.\(tapHandler);
              if (!channel || !window.BridgeScopeTap) { return; }
              var post = channel.postMessage.bind(channel);
              window.BridgeScopeTap.configure({ conn: \(conn), keepSensitiveFields: true,
                onLine: function (line) { post(line); } });
            })();
            """
    }

    /// The tap's source: `BRIDGESCOPE_TAP_JS`, or tools/taps/js/bridge-tap.js found from the
    /// working directory or the executable's folder, up to six levels up.
    package static func locateTap() throws(ShellError) -> String {
        let relative = "tools/taps/js/bridge-tap.js"
        var candidates: [String] = []
        if let p = ProcessInfo.processInfo.environment["BRIDGESCOPE_TAP_JS"], !p.isEmpty { candidates.append(p) }
        for start in [FileManager.default.currentDirectoryPath, executableDirectory()] {
            var dir = URL(fileURLWithPath: start)
            for _ in 0..<7 {
                candidates.append(dir.appendingPathComponent(relative).path)
                dir.deleteLastPathComponent()
            }
        }
        for c in candidates {
            if let text = try? String(contentsOfFile: c, encoding: .utf8) { return text }
        }
        throw ShellError("--record needs the JavaScript tap (\(relative)); not found from here or from the executable: "
                         + "run from the repository or set BRIDGESCOPE_TAP_JS=/path/to/bridge-tap.js")
    }

    static func executableDirectory() -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().path
    }
}
