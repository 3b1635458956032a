package import Foundation

/// An API token as stored: its name, the user it acts for, and whether it may only read. The
/// token itself is never stored, only its hash (`shelf tokens create` prints it once).
package struct APIToken: Hashable, Sendable {
    /// Unique; how `shelf tokens revoke` names it.
    package let name: String
    /// The user the token acts for; deleting the user deletes their tokens.
    package let userID: User.ID
    /// The user's email, for lists.
    package let email: String
    /// True when the token may only read (GET).
    package let readOnly: Bool
    /// When it was made.
    package let createdAt: Date

    package init(name: String, userID: User.ID, email: String, readOnly: Bool, createdAt: Date) {
        self.name = name
        self.userID = userID
        self.email = email
        self.readOnly = readOnly
        self.createdAt = createdAt
    }

    /// The most characters a token's name may have.
    package static let maximumNameLength = 200

    /// Why `name` cannot name a token (empty, too long, a control character), or nil.
    package static func nameProblem(_ name: String) -> String? {
        if name.trimmingCharacters(in: .whitespaces).isEmpty { return "a token's name must not be empty" }
        if name.unicodeScalars.count > maximumNameLength {
            return "a token's name must be at most \(maximumNameLength) characters"
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a token's name must not hold control characters"
        }
        return nil
    }
}

/// Where a backend keeps API tokens (table `api_tokens`, SQLite migration 0010, PostgreSQL
/// 0007). Hashes are given and looked up as lowercase hex.
package protocol TokenStorage: Sendable {
    /// Stores a token. Throws `.invalidValue` when `name` is taken or invalid, `.unknownUser`.
    func insertToken(name: String, userID: User.ID, hash: String, readOnly: Bool) async throws
    /// Every token, by name.
    func tokens() async throws -> [APIToken]
    /// Deletes the token named `name`; false when there is none.
    func revokeToken(named name: String) async throws -> Bool
    /// The token whose hash is `hash`, or nil.
    func token(hash: String) async throws -> APIToken?
    /// True when at least one token exists.
    func hasTokens() async throws -> Bool
}

extension Store {
    /// The store's API tokens (every backend keeps them).
    package var tokens: any TokenStorage { backend }
}
