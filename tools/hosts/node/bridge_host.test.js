// `node --test DIR` only discovers files named like *.test.js; the tests are in test_bridge_host.js.
require('./test_bridge_host.js');
