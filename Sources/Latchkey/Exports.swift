public import LatchkeyWire

/// A JSON value of any shape: a user's ``User/userMetadata`` and ``User/appMetadata``, and the
/// metadata a sign-up or a ``UserUpdate`` sends.
///
/// The one type the Latchkey server and this library both encode metadata with, so that they
/// agree on every edge case (booleans never read as numbers, whole numbers round-trip exactly).
/// It is declared in the `LatchkeyWire` module and named here, so `import Latchkey` is enough to
/// use it; nothing else of `LatchkeyWire` (GoTrue's snake_case request and response bodies) is
/// part of this library's API. A target that turns on the `MemberImportVisibility` upcoming
/// feature also writes `import LatchkeyWire` to use its cases and accessors, as that feature
/// asks for every module whose members a file uses.
///
/// ```swift
/// try await manager.account.update(UserUpdate(data: ["display_name": .string("Ada")]))
/// let name = manager.currentSession?.user.userMetadata["display_name"]?.stringValue
/// ```
public typealias JSONValue = LatchkeyWire.JSONValue
