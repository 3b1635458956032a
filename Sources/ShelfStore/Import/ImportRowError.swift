internal import Foundation

/// A row the store refused, naming the field to blame (a column of the input).
package struct ImportRowError: Error, Sendable {
    package let field: String?
    package let message: String

    package init(field: String?, message: String) {
        self.field = field
        self.message = message
    }
}
