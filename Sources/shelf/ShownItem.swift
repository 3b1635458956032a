import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

/// `shelf items show --json`: the item as `shelf watch` writes it, plus its owner's email.
struct ShownItem: Encodable {
    let item: Item
    /// The owner's email; nil (written as null) when the user is gone.
    let user: String?

    private enum Key: CodingKey { case user }

    func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(user, forKey: .user)
    }
}
