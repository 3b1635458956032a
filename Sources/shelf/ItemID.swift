import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

/// An item ID on the command line: `42` or `#42`.
struct ItemID: ExpressibleByArgument {
    let value: Item.ID

    init?(argument: String) {
        let digits = argument.hasPrefix("#") ? argument.dropFirst() : Substring(argument)
        guard let raw = Int64(digits), raw > 0 else { return nil }
        value = Item.ID(raw)
    }
}
