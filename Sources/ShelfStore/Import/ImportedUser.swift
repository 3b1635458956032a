internal import Foundation

/// A user row read from an import, checked field by field. Times are milliseconds since 1970;
/// nil when the row has none (a new row gets the import's time, an existing one keeps its own).
package struct ImportedUser: Sendable {
    package var id: Int64?
    package var name: String
    package var email: String
    package var createdAt: Int64?

    package init(id: Int64?, name: String, email: String, createdAt: Int64?) {
        self.id = id
        self.name = name
        self.email = email
        self.createdAt = createdAt
    }
}
