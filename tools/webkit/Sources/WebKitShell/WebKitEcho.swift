import CWebKitGTK
import Foundation

/// `webkit-echo URL [--timeout S]`: the floor `bridgescope-webkit` is measured against
/// (tools/bench/webkit). The same WebKit, display and script message handler, and no host:
/// each posted request comes straight back as its own `success` response, rewritten in the
/// page (`window.GBGBridge.receive`); `host.ready` is sent when the page has loaded.
/// Prints the page's `journey.complete` data; exit 0, or 3 on timeout.
package enum WebKitEcho {
    package static func main() -> Never {
        let started = DispatchTime.now()
        var args = Array(CommandLine.arguments.dropFirst())
        var timeout = 60.0
        if let i = args.firstIndex(of: "--timeout"), i + 1 < args.count, let t = Double(args[i + 1]) {
            timeout = t
            args.removeSubrange(i...(i + 1))
        }
        guard args.count == 1 else {
            FileHandle.standardError.write(Data("usage: webkit-echo URL [--timeout S]\n".utf8))
            exit(2)
        }
        let display = DisplayServer()
        do { try display.ensure() } catch {
            FileHandle.standardError.write(Data("webkit-echo: \(error)\n".utf8))
            exit(2)
        }
        guard gtk_init_check(nil, nil) != 0 else { display.stop(); exit(2) }
        let loop = g_main_loop_new(nil, 0)
        var status: Int32 = 3
        var first = true
        var view: WebView?
        view = WebView(bootstrapScript: BootstrapScript.sdkDefault, handlers: ["gbgBridge"]) { report in
            switch report {
            case .message(_, let body, _):
                if first {
                    first = false
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
                    FileHandle.standardError.write(Data("webkit-echo: first message \(Int(ms)) ms after start\n".utf8))
                }
                let text = String(decoding: body, as: UTF8.self)
                if text.contains("\"journey.complete\"") {
                    print("journey complete " + text)
                    status = 0
                    g_main_loop_quit(loop)
                    return
                }
                view?.evaluate(Array(("(function(m){if(m&&m.type==='request'){m.type='response';m.payload.status='success';"
                    + "m.payload.data={};}window.GBGBridge.receive(m);})(" + text + ");").utf8))
            case .loaded:
                view?.evaluate(Array(("window.GBGBridge.receive({version:'1.0',correlationId:'echo-ready',type:'event',"
                    + "timestamp:Date.now(),payload:{action:'host.ready',data:{}}});").utf8))
            case .loadFailed, .webProcessTerminated:
                status = 2
                g_main_loop_quit(loop)
            }
        }
        MainThread.every(milliseconds: UInt32(timeout * 1000)) {
            g_main_loop_quit(loop)
            return false
        }
        view?.load(args[0])
        g_main_loop_run(loop)
        view?.destroy()
        for _ in 0..<50 { if g_main_context_iteration(nil, 0) == 0 { break } }
        fflush(nil)
        ChildReaper.reap(except: Set([display.started?.pid].compactMap { $0 }))
        display.stop()
        exit(status)
    }
}
