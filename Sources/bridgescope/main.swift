print("bridgescope")
