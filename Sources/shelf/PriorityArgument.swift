import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

/// A priority on the command line: 0 to 3. Anything else is a usage error, as a word is.
struct PriorityArgument: ExpressibleByArgument {
    let value: Int

    init(value: Int) {
        self.value = value
    }

    init?(argument: String) {
        guard let number = Int(argument), Item.priorities.contains(number) else { return nil }
        value = number
    }

    var defaultValueDescription: String { String(value) }
}
