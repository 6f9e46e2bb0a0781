'use strict';

/**
 * The names n8n knows this package by, in one place for the tests, the demo, the benchmark and
 * the scripts: the package name (package.json), the node's type (`<package>.<node name>`, the
 * node's `name` being `voiceAssistant` in nodes/VoiceAssistant/VoiceAssistant.node.ts), the
 * type of the node as an AI tool, and the credential's type.
 */

const { name: PACKAGE_NAME } = require('../package.json');

/** The node's `name` in its description. */
const NODE_NAME = 'voiceAssistant';
const NODE_TYPE = `${PACKAGE_NAME}.${NODE_NAME}`;
/** The type n8n gives the node's AI tool variant (usableAsTool). */
const TOOL_NODE_TYPE = `${NODE_TYPE}Tool`;
/** The credential's `name` (CREDENTIAL_NAME in the node's sources). */
const CREDENTIAL_TYPE = 'voiceAssistantApi';

module.exports = { PACKAGE_NAME, NODE_NAME, NODE_TYPE, TOOL_NODE_TYPE, CREDENTIAL_TYPE };
