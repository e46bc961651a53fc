// Measures, in one run: the caller's cost per 1 KB message (webToHost of a string with an
// image field to redact), against two baselines (copying the message's UTF-8, and the
// redaction alone); then messages per second through the whole tap (caller, queue,
// writer thread, file) with no drops. docs/PERFORMANCE.md, "Field taps".
import BridgeTap
import Foundation

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
let image = String(repeating: "QUJD", count: 150)
let message = #"{"version":"1.0","correlationId":"r000001","type":"response","timestamp":1764050000000,"payload":{"action":"camera.document.capture","status":"success","data":{"imageData":"\#(image)","width":1920,"height":1080,"mimeType":"image/jpeg","side":"front","quality":{"blur":0.02,"glare":0.1}}}}"#
let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 200_000
let dir = NSTemporaryDirectory() + "tap-bench-\(UUID().uuidString)"
print("message: \(message.utf8.count) bytes; \(count) messages")

var sink = 0
var t = now()
for _ in 0..<count { sink &+= Array(message.utf8).count }
let copy = Double(now() - t) / Double(count)

let redactor = TapRedactor()
t = now()
for _ in 0..<count { sink &+= redactor.redact(message).utf8.count }
let redact = Double(now() - t) / Double(count)

var configuration = TapConfiguration(directory: dir)
configuration.maxQueueLines = count + 1
configuration.maxQueueBytes = Int.max / 2
configuration.maxFileBytes = 1 << 40
let tap = BridgeTap(configuration)
let web = tap.connection("webview-1")
t = now()
for _ in 0..<count { web.webToHost(message) }
let call = Double(now() - t) / Double(count)
tap.close()

// Throughput with no drops: the default queue, a producer that waits (flush) every 1,000
// messages, so nothing is ever dropped; the time includes writing every line.
let dir2 = dir + "-2"
let tap2 = BridgeTap(TapConfiguration(directory: dir2))
let web2 = tap2.connection("webview-1")
t = now()
for k in 0..<count {
    web2.webToHost(message)
    if k % 1_000 == 999 { tap2.flush() }
}
tap2.close()
let seconds = Double(now() - t) / 1e9
let logs = (try? FileManager.default.contentsOfDirectory(atPath: dir2)) ?? []
var drops = 0, lines = 0
for name in logs {
    let text = (try? String(contentsOfFile: dir2 + "/" + name, encoding: .utf8)) ?? ""
    lines += text.split(separator: "\n").count
    drops += text.components(separatedBy: #""event":"drop""#).count - 1
}
print(String(format: "swift  caller cost per message: %.2f µs (baselines: UTF-8 copy %.2f µs, redaction alone %.2f µs; ratio to copy %.1fx)", call / 1000, copy / 1000, redact / 1000, call / copy))
print(String(format: "swift  throughput with no drops: %.0f messages/s (%d lines written, %d drop lines, %d files)", Double(count) / seconds, lines, drops, logs.count))
try? FileManager.default.removeItem(atPath: dir)
try? FileManager.default.removeItem(atPath: dir2)
if sink == 42 { print("") }
