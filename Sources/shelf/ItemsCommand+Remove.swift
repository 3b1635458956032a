import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

extension ItemsCommand {
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an item.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The item's ID.")
        var id: ItemID

        func run() async throws {
            let store = try await database.openStore()
            do {
                try await store.items.delete(id: id.value)
            } catch let error as StoreError where error.code == .notFound {
                throw CommandError("no item has the ID \(id.value.rawValue); list them with `shelf items list`")
            }
        }
    }
}
