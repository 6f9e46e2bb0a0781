export const PACKAGE_NAME: string;
export const NODE_NAME: 'voiceAssistant';
export const NODE_TYPE: string;
export const TOOL_NODE_TYPE: string;
export const CREDENTIAL_TYPE: 'voiceAssistantApi';
