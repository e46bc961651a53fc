import BridgeHost
import CWebKitGTK
import Foundation
import Logging

/// `bridgescope-webkit`'s entry point: parses the command line, makes a display, starts
/// the host and the shell, and exits with the run's status after every child it started
/// has ended.
package enum ShellCommand {
    /// The version written into archives.
    package static let toolVersion = "0.1.0"

    package static func main() -> Never {
        let started = DispatchTime.now()
        signal(SIGPIPE, SIG_IGN)
        // A parent may start us with SIGINT/SIGTERM blocked (test runners do): then the
        // stop handlers would never run. Unblock them before any thread starts.
        var stops = sigset_t()
        sigemptyset(&stops)
        sigaddset(&stops, SIGINT)
        sigaddset(&stops, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stops, nil)
        let options: ShellOptions
        do {
            options = try ShellOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data((error.status == 0 ? "" : "bridgescope-webkit: ") .utf8 + Data("\(error)\n".utf8)))
            exit(error.status)
        }
        let level = ProcessInfo.processInfo.environment["BRIDGESCOPE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .notice
        LoggingSystem.bootstrap { label in
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "bridgescope.webkit")
        let display = DisplayServer()
        var status: Int32 = 2
        var report = ""
        do {
            try display.ensure()
            logger.info("display: \(display.summary)")
            if let inspector = options.inspector { setenv("WEBKIT_INSPECTOR_HTTP_SERVER", inspector, 1) }
            guard gtk_init_check(nil, nil) != 0 else {
                throw ShellError("GTK cannot open the display (\(display.summary)); unset DISPLAY to let the shell start Xvfb")
            }
            let host = try makeHost(options.host, logger: logger)
            let tap = options.record == nil && options.tapDir == nil ? nil : try BootstrapScript.locateTap()
            let shell = Shell(options: options, logger: logger)
            shell.started = started
            status = try shell.run(host: host, tapSource: tap, toolVersion: toolVersion)
            report = shell.tearDown()
            if !report.isEmpty { print(report) }
            print(shell.outcome?.description ?? "no journey end: \(shell.reason)")
            if status != 0 { FileHandle.standardError.write(Data("bridgescope-webkit: \(shell.reason)\n".utf8)) }
            if let failure = shell.recordingFailure, status < 2 {
                FileHandle.standardError.write(Data("bridgescope-webkit: \(failure)\n".utf8))
                status = 2
            }
        } catch let error as ShellError {
            FileHandle.standardError.write(Data("bridgescope-webkit: \(error)\n".utf8))
            status = error.status
        } catch {
            FileHandle.standardError.write(Data("bridgescope-webkit: \(error)\n".utf8))
        }
        fflush(nil)
        ChildReaper.reap(except: Set([display.started?.pid].compactMap { $0 }))
        display.stop()
        exit(status)
    }

    static func makeHost(_ spec: ShellOptions.Host, logger: Logger) throws(ShellError) -> any ShellHost {
        switch spec {
        case .stdio(let command):
            return StdioHost(command: command)
        case .inproc(let name):
            guard let name else { return InProcessHost(scenario: .default, logger: logger) }
            do {
                let dirs = ["tools/scenarios", BootstrapScript.executableDirectory() + "/../../../../scenarios"]
                    .map { URL(fileURLWithPath: $0).standardizedFileURL.path }
                    .filter { FileManager.default.fileExists(atPath: $0) }
                let path = try Scenario.locate(name, in: dirs, searched: "tools/scenarios from the working directory")
                return InProcessHost(scenario: try Scenario.load(path: path), logger: logger)
            } catch {
                throw ShellError("--host inproc:\(name): \(error)")
            }
        }
    }
}
