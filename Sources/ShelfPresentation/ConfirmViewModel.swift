internal import Foundation
public import ShelfReactive
internal import ShelfStore

/// A yes-or-no question. Main actor.
@MainActor
public final class ConfirmViewModel {
    /// The dialog's title, e.g. "Delete item".
    public let title: String
    /// The question, naming what the choice affects and whether it can be undone.
    public let message: String
    /// The verb on the confirming choice: "delete".
    public let confirmLabel: String
    /// nil while asking; true once confirmed, false once cancelled.
    public let decision: Property<Bool?>
    private let mutableDecision = MutableProperty<Bool?>(nil)

    /// The keys that answer, by default: "y / Enter: delete    n / Esc: cancel".
    public var choices: String { choices(yes: "y / Enter", no: "n / Esc") }

    /// The keys that answer, named `yes` and `no` (the keys in force): "YES: delete    NO: cancel".
    public func choices(yes: String, no: String) -> String { "\(yes): \(confirmLabel)    \(no): cancel" }

    /// A question not yet answered: `decision` starts at nil.
    public init(title: String, message: String, confirmLabel: String) {
        self.title = title
        self.message = message
        self.confirmLabel = confirmLabel
        decision = mutableDecision.property
    }

    /// Answers yes: `decision` becomes true. Only the first answer counts; later calls to
    /// `confirm()` or `cancel()` do nothing.
    public func confirm() {
        if mutableDecision.value == nil { mutableDecision.value = true }
    }

    /// Answers no: `decision` becomes false. Only the first answer counts; later calls to
    /// `confirm()` or `cancel()` do nothing.
    public func cancel() {
        if mutableDecision.value == nil { mutableDecision.value = false }
    }
}
