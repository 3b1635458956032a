/// A position in a store's stream of changes: the sequence number of an entry of its change
/// log.
///
/// Every commit that changes items or users appends entries to the store's change log, each
/// with a sequence number larger than any before it, never handed out again (not even after
/// the log is pruned). A position compares as its sequence number.
///
/// **What a live value's position means.** A `LiveSnapshot` carries the position its value
/// reflects: the value is exactly what a fresh read would return at that position, and no
/// commit after it (up to the time the snapshot was published) changed the value. A live
/// value publishes only when its value changes, so its positions grow strictly with every
/// publication, and the position of the current snapshot is the position of the last commit
/// that changed the value (or, for the first snapshot, the position at its first read).
///
/// **Resuming a client.** A service that sent a client a snapshot of a live value with its
/// position `S` (as an SSE `id:`), and is asked to resume from `S` (`Last-Event-ID: S`) for
/// the same query, compares `S` with the position `P` of the live value's current snapshot:
/// when `P <= S`, the client already has the current value (it saw a value as of `S`, and the
/// value did not change after `P`); when `P > S`, the value changed after what the client saw,
/// and the current snapshot must be sent. A position from another store (another database
/// file, a restored backup) means nothing here: send the current snapshot.
public struct LivePosition: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The change log's sequence number: 0 before the first change was logged.
    public let sequence: Int64

    /// The position of log entry `sequence`.
    public init(sequence: Int64) {
        self.sequence = sequence
    }

    /// Parses the decimal form `description` gives (what a client sends back as
    /// `Last-Event-ID`); nil for anything else.
    public init?(_ text: String) {
        guard let sequence = Int64(text), sequence >= 0 else { return nil }
        self.sequence = sequence
    }

    /// The sequence number in decimal, as `init?(_:)` reads it.
    public var description: String { String(sequence) }

    public static func < (lhs: LivePosition, rhs: LivePosition) -> Bool {
        lhs.sequence < rhs.sequence
    }
}

/// A live value with the position in the store's change stream that it reflects.
public struct LiveSnapshot<Value: Sendable>: Sendable {
    /// The value: what a fresh read returns at `position`.
    public let value: Value
    /// The position of the last commit that changed `value` (see `LivePosition`), or nil
    /// when the store keeps no change log (a backend without one): then a client can never be
    /// told that it already has the current value.
    public let position: LivePosition?

    /// A value as of `position`.
    public init(value: Value, position: LivePosition?) {
        self.value = value
        self.position = position
    }
}

extension LiveSnapshot: Equatable where Value: Equatable {}
extension LiveSnapshot: Hashable where Value: Hashable {}
