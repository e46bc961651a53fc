/// A target that can check it is reachable before fuzzing starts.
package protocol ProbingTarget: FuzzTarget {
    /// Throws a ``FuzzError`` naming what to do when the target cannot be used.
    func probe() async throws
}
