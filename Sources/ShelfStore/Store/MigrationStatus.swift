public import Foundation

/// One schema migration's state in a database file.
public struct MigrationStatus: Hashable, Sendable {
    /// Applied, pending, or one of the two states that make the store refuse to open.
    public enum State: Hashable, Sendable {
        /// Applied at that time, unchanged since.
        case applied(Date)
        /// Known to this version, not yet applied.
        case pending
        /// Applied at that time, but its SQL has been edited since: the store refuses to open.
        case modified(Date)
        /// Applied by a newer version of shelf that this one does not know: the store refuses
        /// to open.
        case unknown(Date)
    }

    /// The migration's name, e.g. `0001_create_users_and_items`.
    public let name: String
    /// Where the migration stands in this database.
    public let state: State

    /// A migration's state, as a backend reads it.
    package init(name: String, state: State) {
        self.name = name
        self.state = state
    }
}
