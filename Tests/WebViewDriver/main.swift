// A test driver for WebViewProcessSwapTests: drives a `webkit:` WebView link through
// cross-site navigations in a process of its own (in the test runner, the link's socket
// task would wait on a cooperative pool that the synchronous tests hold for minutes).
//
//   WebViewDriver SPEC TAP-JS URL...
//
// Opens SPEC (as `fuzz --target` takes it) on the page it names, posts a capability query
// and waits for its answer, then for each URL: navigates there, posts, waits. Prints one
// line per step: `target <id> url <href> answered <true|false>`; exit 0 when every answer
// came, 1 when one did not, 2 when the link failed.
import BridgeDevTools
import Foundation

let args = CommandLine.arguments.dropFirst()
guard args.count >= 2, let spec = try? WebViewSpec(parsing: args[args.startIndex]) else {
    FileHandle.standardError.write(Data("usage: WebViewDriver webkit:http://HOST:PORT TAP-JS URL...\n".utf8))
    exit(2)
}
let tapSource = try String(contentsOfFile: args[args.startIndex + 1], encoding: .utf8)
let urls = Array(args.dropFirst(2))

func roundTrip(_ link: WebViewLink, _ id: String) async throws -> Bool {
    let request = #"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":1,"payload":{"action":"capability.query"}}"#
    guard case .crossed = try await link.post(Array(request.utf8)).value else { return false }
    let waiter = Task {
        for await answer in link.answers where String(decoding: answer, as: UTF8.self).contains("\"correlationId\":\"\(id)\"") {
            return true
        }
        return false
    }
    let timer = Task { try? await Task.sleep(for: .seconds(60)); waiter.cancel() }
    defer { timer.cancel() }
    return await waiter.value
}

do {
    let link = try await WebViewLink.open(spec, tapSource: tapSource, blank: false, commandTimeout: 30)
    var all = true
    for (i, url) in ([nil] + urls.map { Optional($0) }).enumerated() {
        if let url { try await link.navigate(to: url) }
        let answered = try await roundTrip(link, "step-\(i)")
        all = all && answered
        print("target \(link.pageTarget ?? "-") url \(link.pageURL) answered \(answered)")
    }
    if let failure = link.failure, !failure.contains("closed") { print("failure \(failure)") }
    link.close()
    exit(all ? 0 : 1)
} catch {
    print("error \(error)")
    exit(2)
}
