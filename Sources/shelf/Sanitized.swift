import ArgumentParser
import Foundation
import ShelfStore
import ShelfTerminal
import ShelfTransfer

/// Text from data made safe for a terminal: control characters become visible.
struct Sanitized: CustomStringConvertible {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    var description: String { TextTable.isTerminal ? Sanitizer.sanitize(text) : TextTable.escapeForTSV(text) }
}
