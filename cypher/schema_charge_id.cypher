// A charge is recorded once: re-writing the identical release does not spend ε twice.
CREATE CONSTRAINT graphanon_charge_id IF NOT EXISTS
FOR (c:PrivacyCharge) REQUIRE c.charge_id IS UNIQUE
