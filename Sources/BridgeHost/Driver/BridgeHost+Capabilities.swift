import BridgeProtocol

extension BridgeHost {
    /// Registers a custom capability (seed 002): requests whose action is `id` go to
    /// `handler`, and `capability.query` reports `{supported: true, version}` for `id`
    /// unless a supported typed slot has the same id. Registering an id again replaces it.
    public func registerCustomCapability(_ id: String, version: String, handler: @escaping CustomCapabilityHandler) {
        core.withLock { c in
            c.customHandlers[id] = handler
            c.machine.registerCustomCapability(id, version: version, handler: .external)
        }
    }

    /// Registers a custom capability served by a ``ScriptedBehaviour`` (scenario hosts).
    public func registerCustomCapability(_ id: String, version: String, script: ScriptedBehaviour) {
        core.withLock { c in
            c.customHandlers[id] = nil
            c.machine.registerCustomCapability(id, version: version, handler: .scripted(script))
        }
    }

    /// Removes a custom capability; requests in progress still complete.
    public func unregisterCustomCapability(_ id: String) {
        core.withLock { c in
            c.customHandlers[id] = nil
            c.machine.unregisterCustomCapability(id)
        }
    }

    /// Registered custom capability ids, in registration order.
    public var customCapabilityIDs: [String] { core.withLock { $0.machine.customCapabilityIDs } }

    /// Registers a configuration-based handler for `handler.action` (replacing any).
    /// Lowest routing precedence: a supported typed slot or a custom capability for the same
    /// action wins.
    public func register(handler: some BridgeCapabilityHandler) {
        core.withLock { c in
            c.configurationHandlers[handler.action] = handler
            c.machine.registerConfigurationHandler(action: handler.action, .external)
        }
    }

    /// Removes the configuration handler for `action`.
    public func unregister(action: String) {
        core.withLock { c in
            c.configurationHandlers[action] = nil
            c.machine.unregisterConfigurationHandler(action: action)
        }
    }
}
