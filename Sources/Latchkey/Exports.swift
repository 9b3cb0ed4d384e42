// The wire types are part of the client's public API: a user's metadata is JSONValue.
@_exported import LatchkeyWire
