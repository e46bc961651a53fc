// Test driver of the Swift field tap (docs/TAP.md), with the Java and JavaScript drivers'
// contract: `TapDriver --dir DIR [--prefix P] [--keep] [--max-file-bytes N] [--max-files N]
// [--queue-lines N]` reads lines `w2h|h2w <conn> <base64 of the message's UTF-16BE code
// units>` from standard input, hands each to the tap, and at end of input closes the tap
// and exits 0. Tap errors go to standard error as `tap error: ...`.
import BridgeTap
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func value(_ name: String) -> String? {
    guard let k = arguments.firstIndex(of: name), k + 1 < arguments.count else { return nil }
    return arguments[k + 1]
}
guard let dir = value("--dir") else {
    FileHandle.standardError.write(Data("usage: TapDriver --dir DIR [--prefix P] [--keep] [--max-file-bytes N] [--max-files N] [--queue-lines N]\n".utf8))
    exit(2)
}
var configuration = TapConfiguration(directory: dir)
if let p = value("--prefix") { configuration.prefix = p }
if arguments.contains("--keep") { configuration.keepSensitiveFields = true }
if let n = value("--max-file-bytes").flatMap(Int.init) { configuration.maxFileBytes = n }
if let n = value("--max-files").flatMap(Int.init) { configuration.maxFiles = n }
if let n = value("--queue-lines").flatMap(Int.init) { configuration.maxQueueLines = n }
configuration.onError = { FileHandle.standardError.write(Data("tap error: \($0)\n".utf8)) }

let tap = BridgeTap(configuration)
var connections: [String: TapConnection] = [:]
while let line = readLine(strippingNewline: true) {
    let parts = line.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, let data = Data(base64Encoded: String(parts[2])) else {
        FileHandle.standardError.write(Data("bad driver line: \(line.prefix(80))\n".utf8))
        exit(2)
    }
    let bytes = Array(data)
    let units = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
    // A Swift String cannot hold an unpaired surrogate: decoding replaces it with U+FFFD,
    // as WebKit's bridge does.
    let text = String(decoding: units, as: UTF16.self)
    let id = String(parts[1])
    let connection = connections[id] ?? tap.connection(id)
    connections[id] = connection
    if parts[0] == "w2h" { connection.webToHost(text) } else { connection.hostToWeb(text) }
}
tap.close()
