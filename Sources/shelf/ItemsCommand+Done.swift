import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

extension ItemsCommand {
    struct Done: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark an item done.")

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The item's ID.")
        var id: ItemID

        func run() async throws {
            let store = try await database.openStore()
            // Another writer may change the item between the read and the update: retry then.
            for attempt in 1...3 {
                var item = try await store.items.requireItem(id: id.value)
                guard item.status != .done else { return }
                item.status = .done
                do {
                    _ = try await store.items.update(item)
                    return
                } catch let error as StoreError where error.code == .conflict && attempt < 3 {
                    continue
                }
            }
        }
    }
}
