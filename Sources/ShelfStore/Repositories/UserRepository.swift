/// Stores users.
///
/// Every method is safe to call from any task. Mutations are atomic: when one throws, the
/// store is as it was. Errors are `StoreError`.
public protocol UserRepository: Sendable {
    /// Stores a new user and returns its ID.
    ///
    /// The email is stored trimmed of surrounding spaces and in Unicode NFC, and is unique in
    /// that form with letter case ignored in every script (Unicode case folding: `Äda@x.com`
    /// and `äda@x.com` are one user); control, line-separator and text-direction characters
    /// in it are refused (the rule is `Email.normalized(_:)`), and so is a NUL in the name.
    /// - Throws: `.duplicateEmail`, `.invalidValue` (empty name, malformed email, a refused
    ///   character in the email or the name: the message names it and its position).
    @discardableResult
    func insert(_ user: NewUser) async throws -> User.ID

    /// Stores all `users` in one transaction and returns their IDs in order. When one fails,
    /// none is stored and the error names its position.
    @discardableResult
    func insert(contentsOf users: [NewUser]) async throws -> [User.ID]

    /// Saves a changed name or email; the email is normalized and checked as by `insert`.
    /// - Throws: `.notFound`, `.duplicateEmail`, `.invalidValue`.
    func update(_ user: User) async throws

    /// Deletes a user and, with it, all their items (and their API tokens; their saved views
    /// lose their owner). Returns how many items went with them, counted by the delete itself
    /// in its own transaction: exact even while other writers add items to that user (those
    /// that commit first are counted and deleted, those after it are refused, `.unknownUser`).
    /// - Throws: `.notFound` when no such user exists.
    @discardableResult
    func delete(id: User.ID) async throws -> Int

    /// Saves `user`'s name and email as `update(_:)` does, only if the stored row still has the
    /// name and email of `expected` (a read of it): the check is part of the UPDATE, so of two
    /// writers that read the same row, one wins and the other gets `.conflict`. Users have no
    /// version column; their name and email are what a client sees of them.
    /// - Throws: `.conflict` when the row changed since `expected`, `.notFound`,
    ///   `.duplicateEmail`, `.invalidValue`.
    func update(_ user: User, expecting expected: User) async throws

    /// Deletes the user as `delete(id:)` does, only if the stored row still has the name and
    /// email of `expected` (compare-and-set in the DELETE's transaction). Returns how many
    /// items went with them, as `delete(id:)` does.
    /// - Throws: `.conflict` when the row changed since `expected`, `.notFound`.
    @discardableResult
    func delete(id: User.ID, expecting expected: User) async throws -> Int

    /// The user with `id`, or nil.
    func user(id: User.ID) async throws -> User?

    /// The user with `email` (letter case ignored in every script; trimmed and NFC-normalized
    /// first, as stored), or nil. Of two users whose emails differ only in letter case
    /// (`EmailCollision`), the one whose email is typed exactly is found.
    func user(email: String) async throws -> User?

    /// All users ordered by name, then ID.
    func users() async throws -> [User]
}
