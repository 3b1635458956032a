import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

extension UserRepository {
    /// The user with `email`, or an error that says how to add one.
    func requireUser(email: String) async throws -> User {
        guard let user = try await user(email: email) else {
            throw CommandError(
                "no user has the email '\(email)'; add one with `shelf users add --name NAME --email \(ShellQuoting.quoted(email))`"
            )
        }
        return user
    }
}

extension ItemRepository {
    /// The item with `id`, or an error that says how to find one.
    func requireItem(id: Item.ID) async throws -> Item {
        guard let item = try await item(id: id) else {
            throw CommandError("no item has the ID \(id.rawValue); list them with `shelf items list`")
        }
        return item
    }
}
