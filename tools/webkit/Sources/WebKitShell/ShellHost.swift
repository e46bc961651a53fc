/// The native host behind the shell's bridge: the reference host in this process, or any
/// host that speaks the `host --stdio` contract (docs/HOST.md) in a child process.
///
/// Bodies go in as the native side received them; the host's messages come out through
/// the `send` closure given to ``start(send:observe:)``, from any thread.
package protocol ShellHost: AnyObject, Sendable {
    /// Starts the host. `send` takes each host → web message (one JSON text);
    /// `observe` is the native tap: what the host received (`w2h`) and sent (`h2w`);
    /// nil when nothing records (the tap then costs nothing).
    ///
    /// `ended` is called, from any thread, when the host ends by itself (a child process
    /// that exited or closed its output): the shell then ends as an app whose host
    /// crashed would.
    func start(send: @escaping @Sendable ([UInt8]) -> Void,
               observe: (@Sendable (NativeObservation) -> Void)?,
               ended: @escaping @Sendable (String) -> Void) throws(ShellError)
    /// Hands one posted body to the host.
    func receive(_ body: [UInt8])
    /// Whether the host's messages need checking before they are evaluated (a child
    /// process's lines may be anything; the in-process host's encoder writes JSON).
    var sendsUncheckedLines: Bool { get }
    /// Ends the host's input and waits (at most `timeoutSeconds`) for it to finish.
    func stop(timeoutSeconds: Double)
}

/// One message the native tap saw.
package struct NativeObservation: Sendable {
    /// `w2h` (the host received it) or `h2w` (the host sent it).
    package var direction: String
    /// The message as the native side holds it.
    package var bytes: [UInt8]
    /// Capture time, nanoseconds since the epoch.
    package var time: Int64
}

/// What stops the shell before or while it runs, with the exit status it maps to.
package struct ShellError: Error, CustomStringConvertible, Sendable {
    /// The sentence printed after `bridgescope-webkit: `.
    package var description: String
    /// 2: usage or set-up.
    package var status: Int32 = 2

    package init(_ description: String, status: Int32 = 2) {
        self.description = description
        self.status = status
    }
}
