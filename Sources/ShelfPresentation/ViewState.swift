/// What a screen shows: nothing yet, a spinner, content, a failure, or an empty result.
///
/// Screens render it deterministically: hide everything, then show what the state says.
public enum ViewState<Content> {
    /// Nothing asked for yet.
    case idle
    /// Waiting for the first content.
    case loading
    /// The content to show.
    case loaded(Content)
    /// Reading failed; the failure's message says what to do (often: retry).
    case failed(Failure)
    /// Nothing to show; the text says why, written for a person (e.g. whether filters hide
    /// items).
    case empty(String)

    /// The content when loaded, else nil.
    public var value: Content? {
        if case .loaded(let content) = self { return content }
        return nil
    }

    /// True in state `.loading` only (not while idle).
    public var isLoading: Bool {
        if case .loading = self { return true }
        return false
    }

    /// The failure when failed, else nil.
    public var failure: Failure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }

    /// The text when empty, else nil.
    public var emptyMessage: String? {
        if case .empty(let message) = self { return message }
        return nil
    }

    /// The same state with its content transformed.
    public func map<T>(_ transform: (Content) -> T) -> ViewState<T> {
        switch self {
        case .idle: .idle
        case .loading: .loading
        case .loaded(let content): .loaded(transform(content))
        case .failed(let failure): .failed(failure)
        case .empty(let message): .empty(message)
        }
    }
}

extension ViewState: Equatable where Content: Equatable {}
extension ViewState: Hashable where Content: Hashable {}
extension ViewState: Sendable where Content: Sendable {}

/// Why something failed: a message for a person, and the error underneath for logs.
///
/// Two failures are equal when their messages are.
public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
    /// What happened and what to do, in plain words.
    public let message: String
    /// The error that caused it.
    public let underlying: any Error

    /// A failure that shows `message` and keeps `underlying` for logs.
    public init(_ message: String, underlying: any Error) {
        self.message = message
        self.underlying = underlying
    }

    /// The message.
    public var description: String { message }

    /// Compares messages only: the underlying errors are not compared.
    public static func == (lhs: Failure, rhs: Failure) -> Bool { lhs.message == rhs.message }
    /// Hashes the message only, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(message) }
}
