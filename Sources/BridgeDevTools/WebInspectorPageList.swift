/// The page list of WebKit's inspector HTTP server (`WEBKIT_INSPECTOR_HTTP_SERVER`,
/// WebKitGTK's remote inspector; `bridgescope-webkit --inspector`): an HTML page at `/`
/// ("Inspectable targets"), no `/json`. Each target is a table row whose button opens
/// `Main.html?ws=' + window.location.host + '/socket/<connection>/<target>/WebPage`,
/// beside `<div class="targetname">TITLE</div><div class="targeturl">URL</div>`.
///
/// A small tolerant scanner, not an HTML parser: it finds every
/// `/socket/<digits>/<digits>/WebPage` and takes the title and URL from the nearest
/// `targetname`/`targeturl` cells before it (empty when missing). Markup it does not
/// know is skipped; a page without sockets is an empty list. Pure (docs/CDP.md, "WebKit").
package struct WebInspectorPageList: Sendable, Equatable {
    /// One inspectable page.
    package struct Page: Sendable, Equatable {
        /// The socket's path, `/socket/<connection>/<target>/WebPage`.
        package var socketPath: String
        /// The page's title (HTML entities decoded), or "".
        package var title: String
        /// The page's URL (HTML entities decoded), or "".
        package var url: String

        /// A page as the list shows it.
        package init(socketPath: String, title: String, url: String) {
            self.socketPath = socketPath
            self.title = title
            self.url = url
        }
    }

    /// The pages, in the order the list shows them, each socket once.
    package var pages: [Page]

    /// The largest number of digits accepted in a socket path's numbers (an int32's ten).
    static let maxDigits = 10

    /// Scans `html` (the body of `GET /`).
    package init(html: [UInt8]) {
        let text = String(decoding: html, as: UTF8.self)
        var pages: [Page] = []
        var seen: Set<String> = []
        let bytes = Array(text.utf8)
        let marker = Array("/socket/".utf8)
        var i = 0
        var cellsFrom = 0   // cells before a socket belong to it only when after the previous socket
        while i + marker.count <= bytes.count {
            guard bytes[i..<(i + marker.count)].elementsEqual(marker) else { i += 1; continue }
            var j = i + marker.count
            guard let (a, afterA) = Self.digits(bytes, j), afterA < bytes.count, bytes[afterA] == 0x2F,
                  let (b, afterB) = Self.digits(bytes, afterA + 1) else { i += 1; continue }
            j = afterB
            let tail = Array("/WebPage".utf8)
            guard j + tail.count <= bytes.count, bytes[j..<(j + tail.count)].elementsEqual(tail) else { i += 1; continue }
            let path = "/socket/\(a)/\(b)/WebPage"
            let before = String(decoding: bytes[cellsFrom..<i], as: UTF8.self)
            if seen.insert(path).inserted {
                pages.append(Page(socketPath: path, title: Self.cell("targetname", in: before),
                                  url: Self.cell("targeturl", in: before)))
            }
            i = j + tail.count
            cellsFrom = i
        }
        self.pages = pages
    }

    /// A run of 1...maxDigits ASCII digits at `start` and the index after it.
    static func digits(_ bytes: [UInt8], _ start: Int) -> (String, Int)? {
        var end = start
        while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
        guard end > start, end - start <= maxDigits else { return nil }
        return (String(decoding: bytes[start..<end], as: UTF8.self), end)
    }

    /// The text of the last `class="NAME">…<` in `html` (quotes either way), decoded.
    static func cell(_ name: String, in html: String) -> String {
        var found: Substring?
        for quote in ["\"", "'"] {
            if let r = html.range(of: "class=\(quote)\(name)\(quote)", options: .backwards),
               found == nil || r.lowerBound > found!.startIndex {
                guard let open = html[r.upperBound...].firstIndex(of: ">") else { continue }
                let rest = html[html.index(after: open)...]
                found = rest[..<(rest.firstIndex(of: "<") ?? rest.endIndex)]
            }
        }
        return found.map { decodeEntities(String($0)) } ?? ""
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`/`&#NN;`/`&#xHH;`; anything else stays as written.
    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var rest = Substring(s)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[amp...]
            guard let semi = after.firstIndex(of: ";"), after.distance(from: amp, to: semi) <= 10 else {
                out += "&"; rest = rest[rest.index(after: amp)...]; continue
            }
            let name = after[after.index(after: amp)..<semi]
            var decoded: String?
            switch name {
            case "amp": decoded = "&"
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            default:
                if name.hasPrefix("#x") || name.hasPrefix("#X"), let v = UInt32(name.dropFirst(2), radix: 16) {
                    decoded = Unicode.Scalar(v).map { String(Character($0)) }
                } else if name.hasPrefix("#"), let v = UInt32(name.dropFirst()) {
                    decoded = Unicode.Scalar(v).map { String(Character($0)) }
                }
            }
            if let decoded { out += decoded; rest = rest[rest.index(after: semi)...] } else {
                out += "&"; rest = rest[rest.index(after: amp)...]
            }
        }
        return out + rest
    }
}
