/// Why a store operation failed. The operation changed nothing.
///
/// Match the kind in a `catch` clause: `catch let error as StoreError where error.code == .conflict`.
/// `description` says what happened, to what, and what to do.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, for `catch` clauses and exit codes.
    public enum Code: String, Sendable, Hashable {
        /// No row with that ID.
        case notFound
        /// The item changed since it was read (its version is stale); re-read and retry.
        case conflict
        /// Another user already has that email (letter case ignored).
        case duplicateEmail
        /// The referenced user does not exist.
        case unknownUser
        /// A field breaks a rule (empty title, priority out of range, malformed email, …).
        case invalidValue
        /// Another process holds the database lock past the busy timeout.
        case busy
        /// The database was made by a newer version of shelf.
        case newerDatabase
        /// An applied migration was edited after it was applied.
        case modifiedMigration
        /// A migration failed and was rolled back.
        case migrationFailed
        /// The file is damaged or not a database.
        case corrupt
        /// The database file was deleted or replaced while open; open the store again.
        case fileReplaced
        /// The file is a SQLite database, but not a shelf's; nothing was changed in it.
        case foreignDatabase
        /// The store was closed (`Store.close()`); open it again to use it.
        case closed
        /// Any other database failure.
        case database
    }

    /// What a person can do about a failure beyond what the message says, in terms the
    /// program that shows the error renders with its own words (the `shelf` command names its
    /// `--db` option and `SHELF_DB`). Library messages never name a program's options.
    public enum Hint: String, Sendable, Hashable {
        /// The database named cannot be used as it is: choose another one.
        case chooseAnotherDatabase
        /// The database named may not be the one meant: check where it is.
        case checkDatabaseLocation
    }

    /// What kind of failure this is.
    public let code: Code
    /// What happened, to what, and what to do; fit to show to a person.
    public let message: String
    /// What else to do, for the program to render; nil when the message says it all.
    public let hint: Hint?
    /// True when the operation failed because its connection to a database server was lost
    /// (the server ended it, a restart, the network): it may work when tried again, on another
    /// connection. Set by server backends (`markConnectionLost()`).
    package private(set) var isConnectionLost = false
    /// True when the operation failed because the disk it wrote to is full (SQLite's
    /// SQLITE_FULL): the program, which knows which file it was writing, can say where. Set by
    /// backends (`markDiskFull()`).
    package private(set) var isDiskFull = false
    /// True when the operation failed because the database server could not be reached, or
    /// took no more connections, or none of the store's connections came free in time: nothing
    /// was done, and it may work when tried again a moment later. Set by server backends
    /// (`markServerUnavailable()`).
    package private(set) var isServerUnavailable = false

    /// An error of kind `code`; `message` should say what to do.
    public init(_ code: Code, _ message: String, hint: Hint? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// Marks this error as a lost connection (`isConnectionLost`).
    package mutating func markConnectionLost() {
        isConnectionLost = true
    }

    /// Marks this error as a server that cannot take the operation now (`isServerUnavailable`).
    package mutating func markServerUnavailable() {
        isServerUnavailable = true
    }

    /// Marks this error as a full disk (`isDiskFull`).
    package mutating func markDiskFull() {
        isDiskFull = true
    }

    /// The message: what happened, to what, and what to do.
    public var description: String { message }
}

extension StoreError.Code {
    /// True when `error` is a `StoreError` of this kind: `if StoreError.Code.conflict ~= error`.
    /// (In a `catch`, an enum case is read as a case pattern; bind and compare the code there.)
    public static func ~= (code: Self, error: any Error) -> Bool {
        (error as? StoreError)?.code == code
    }
}
