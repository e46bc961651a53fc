/// A JUnit XML report, the one writer of the format for `analyze`, `replay` and `fuzz`
/// (`--format junit`): `<testsuites>` holding `<testsuite>`s of `<testcase>`s, each
/// passed, failed (one or more `<failure>`), in error, or skipped. Every name and text is
/// escaped with ``XMLText``, so nothing read from a session can break the document.
public struct JUnitDocument: Sendable, Hashable {
    /// One `<testcase>`.
    public struct TestCase: Sendable, Hashable {
        /// How a test case ended.
        public enum Outcome: Sendable, Hashable {
            /// Passed (an empty element, or one with `<system-out>` only).
            case passed
            /// Failed: one `<failure>` per entry.
            case failed([Failure])
            /// Could not run: an `<error>`.
            case error(type: String?, message: String)
            /// Skipped: a `<skipped>` with its reason.
            case skipped(String)
        }

        /// One `<failure>`.
        public struct Failure: Sendable, Hashable {
            /// The `type` attribute, when there is one.
            public var type: String?
            /// The `message` attribute.
            public var message: String
            /// The element's text.
            public var body: String
            /// Creates a failure.
            public init(type: String? = nil, message: String, body: String = "") {
                self.type = type
                self.message = message
                self.body = body
            }
        }

        /// `classname`.
        public var className: String
        /// `name`.
        public var name: String
        /// `time` in seconds, when known.
        public var time: String?
        /// The outcome.
        public var outcome: Outcome
        /// `<system-out>` text, when there is some.
        public var systemOut: String?

        /// Creates a test case.
        public init(className: String, name: String, time: String? = nil, outcome: Outcome = .passed, systemOut: String? = nil) {
            self.className = className
            self.name = name
            self.time = time
            self.outcome = outcome
            self.systemOut = systemOut
        }
    }

    /// One `<property>` of a suite.
    public struct Property: Sendable, Hashable {
        /// `name`.
        public var name: String
        /// `value`.
        public var value: String
        /// Creates a property.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One `<testsuite>`.
    public struct TestSuite: Sendable, Hashable {
        /// `name`.
        public var name: String
        /// `time` in seconds, when known.
        public var time: String?
        /// `<properties>`, in order.
        public var properties: [Property]
        /// The test cases.
        public var cases: [TestCase]

        /// Creates a suite.
        public init(name: String, time: String? = nil, properties: [Property] = [], cases: [TestCase] = []) {
            self.name = name
            self.time = time
            self.properties = properties
            self.cases = cases
        }
    }

    /// The `name` of `<testsuites>`.
    public var name: String
    /// The suites.
    public var suites: [TestSuite]

    /// Creates a document.
    public init(name: String, suites: [TestSuite] = []) {
        self.name = name
        self.suites = suites
    }
}
