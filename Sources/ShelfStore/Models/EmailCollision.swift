/// Two users whose emails differ only in letter case (`Äda@x.com` and `äda@x.com`): the
/// same user by today's rule (`Email.key`), stored as two before it, or by a program that
/// does not know it (the sqlite3 shell, psql, an import).
///
/// Opening a store never fails for it and never merges them: the older user (`keptBy`) keeps
/// the email's key, so looking the email up finds them; `user` keeps no key until one of the
/// two emails changes, and is reported (`Store.emailCollisions`, `shelf migrate`).
public struct EmailCollision: Hashable, Sendable {
    /// The user left without the key.
    public let user: User.ID
    /// Their email, as stored.
    public let email: String
    /// The user who has the key.
    public let keptBy: User.ID
    /// That user's email, as stored.
    public let keptEmail: String

    /// A collision, as a backend finds it.
    package init(user: User.ID, email: String, keptBy: User.ID, keptEmail: String) {
        self.user = user
        self.email = email
        self.keptBy = keptBy
        self.keptEmail = keptEmail
    }
}
