'use strict';

/**
 * Default data the simulator starts with: a few realistic assistants and the
 * knowledge bases they refer to. Every required Assistant field of the spec is
 * present with an allowed value. Functions return fresh copies so one
 * simulator's changes never leak into another.
 */

const ASSETS_URL = 'https://assets.example.com';

/**
 * The spec allows exactly one opt_out_script: a fixed prompt telling the
 * assistant to trigger the function 'optOut' when a caller no longer wants to
 * be called, and to tell them they won't be contacted again. Its exact wording
 * is not shown, so this is our plausible rendering of it.
 */
const OPT_OUT_SCRIPT =
	"If the caller says they no longer want to be called or asks to be removed from the list, trigger the function named 'optOut' and tell the caller politely that they will not be contacted again.";

const SEEDED_KNOWLEDGE_BASE_IDS = Object.freeze({
	solarFaq: '6650a1b2c3d4e5f6a7b8c9d0',
	workshopHours: '6650a1b2c3d4e5f6a7b8c9d1',
});

/** @param {number} n one of 1, 3, 4, 5 (the spec's listed options) */
function assistantImage(n) {
	return `${ASSETS_URL}/assistant_profile/${n}.jpeg`;
}

/** @returns {Array<Record<string, unknown>>} */
function defaultAssistants() {
	return [
		{
			_id: '6650b7c1e4a2f9d3b8c10a01',
			type: 'outbound',
			language: 'en',
			name: 'Maya',
			company_name: 'Brightline Solar',
			accent: 'American',
			goal: 'Qualify homeowners interested in rooftop solar and book a free site survey.',
			start_speech:
				'Hi, this is Maya from Brightline Solar. Do you have a minute to talk about lowering your energy bill?',
			voice_id: 'vc-en-us-female-01',
			voice_name: 'Maya (American English)',
			script:
				'Introduce Brightline Solar, ask whether the caller owns their home, ask for their average monthly electricity bill, and offer a free site survey. If they agree, schedule the survey.',
			maximum_time_per_call: 10,
			is_voice_note: true,
			voice_note:
				'Hi, this is Maya from Brightline Solar. Sorry I missed you, I will try again tomorrow. Have a great day!',
			ai_model_id: '64f1a2b3c4d5e6f708192a3b',
			sentiment: {
				general_prompt: 'Rate how the caller felt about the conversation overall.',
				positive_prompt: 'The caller was interested in solar or agreed to a site survey.',
				negative_prompt: 'The caller was annoyed, hostile or asked not to be called again.',
				neutral_prompt: 'The caller listened but did not commit either way.',
			},
			voice_speed: 1.1,
			is_filler: true,
			fillers: ['Hmm'],
			assistant_image: assistantImage(1),
			ai_modal: 'eleven_turbo_v2_5',
			sensitivity: 1000,
			temperature: 0.8,
			opt_out_script: OPT_OUT_SCRIPT,
			is_wait_start_speech: true,
			utterance_length: 4,
			meeting_note_prompt:
				'Summarise the homeowner details, monthly bill and any objections in three bullet points.',
			call_outcome_prompt:
				'Classify the outcome as one of: survey booked, call back later, not interested, wrong number.',
			actions: [
				{
					type: 'scheduleMeeting',
					meetingType: 'openBooking',
					startDate: '2025-01-06',
					startTime: '09:00',
					endTime: '17:00',
					bookingDays: 'Monday,Tuesday,Wednesday,Thursday,Friday',
					timezone: 'America/New_York',
					description: 'Free rooftop solar site survey',
					say: 'Great, let me find a time for your free site survey.',
					length: 30,
					prompt: 'Offer the two earliest free slots first.',
				},
			],
			zapier_hook: 'https://hooks.zapier.com/hooks/catch/1234567/abcdefg/',
			knowledge_base_Id: SEEDED_KNOWLEDGE_BASE_IDS.solarFaq,
			is_recording: true,
			is_back_sound: false,
			is_sensitivity: true,
			is_opt_out: true,
		},
		{
			_id: '6650b7c1e4a2f9d3b8c10a02',
			type: 'inbound',
			language: 'de',
			name: 'Lukas',
			company_name: 'Autohaus Weber',
			accent: 'German',
			goal: 'Answer questions about workshop opening hours and book service appointments.',
			start_speech: 'Guten Tag, Autohaus Weber, hier spricht Lukas. Wie kann ich Ihnen helfen?',
			voice_id: 'vc-de-de-male-02',
			voice_name: 'Lukas (Deutsch)',
			script:
				'Begrüße den Anrufer, frage nach Kennzeichen und Anliegen und biete einen Werkstatttermin an.',
			maximum_time_per_call: 8,
			is_voice_note: false,
			voice_note: '',
			ai_model_id: '64f1a2b3c4d5e6f708192a3c',
			sentiment: {
				general_prompt: 'Wie zufrieden war der Anrufer mit dem Gespräch?',
				positive_prompt: 'Der Anrufer hat einen Termin gebucht oder sich bedankt.',
				negative_prompt: 'Der Anrufer war verärgert oder hat aufgelegt.',
				neutral_prompt: 'Der Anrufer hat nur eine Auskunft eingeholt.',
			},
			voice_speed: 1,
			is_filler: false,
			fillers: [],
			assistant_image: assistantImage(3),
			ai_modal: 'eleven_multilingual_v2',
			sensitivity: 800,
			temperature: 0.7,
			opt_out_script: OPT_OUT_SCRIPT,
			is_wait_start_speech: false,
			utterance_length: 3,
			meeting_note_prompt: 'Fasse Kennzeichen, Fahrzeug und gewünschte Leistung zusammen.',
			call_outcome_prompt: 'Termin gebucht, Auskunft erteilt oder Rückruf gewünscht?',
			is_recording: false,
			is_opt_out: false,
		},
		{
			_id: '6650b7c1e4a2f9d3b8c10a03',
			type: 'outbound',
			language: 'es',
			name: 'Sofía',
			company_name: 'Clínica Dental Sonrisa',
			accent: 'Spanish (Spain)',
			goal: 'Remind patients of upcoming appointments and confirm or reschedule them.',
			start_speech:
				'Hola, le llamo de la Clínica Dental Sonrisa para recordarle su cita de mañana. ¿Podrá asistir?',
			voice_id: 'vc-es-es-female-03',
			voice_name: 'Sofía (Español)',
			script:
				'Confirme el nombre del paciente, recuerde la fecha y hora de la cita y pregunte si puede asistir. Si no, ofrezca otra fecha.',
			maximum_time_per_call: 5,
			is_voice_note: true,
			voice_note:
				'Hola, le llamamos de la Clínica Dental Sonrisa. Por favor, devuélvanos la llamada.',
			ai_model_id: '64f1a2b3c4d5e6f708192a3b',
			sentiment: {
				general_prompt: '¿Cómo se sintió el paciente durante la llamada?',
				positive_prompt: 'El paciente confirmó la cita.',
				negative_prompt: 'El paciente se molestó o canceló sin reprogramar.',
				neutral_prompt: 'El paciente pidió que le llamaran más tarde.',
			},
			voice_speed: 1.2,
			is_filler: true,
			fillers: ['Eh'],
			assistant_image: assistantImage(4),
			ai_modal: 'eleven_multilingual_v2',
			sensitivity: 1200,
			temperature: 1,
			opt_out_script: OPT_OUT_SCRIPT,
			is_wait_start_speech: false,
			utterance_length: 5,
			meeting_note_prompt: 'Anote si la cita fue confirmada, cancelada o reprogramada.',
			call_outcome_prompt: 'Confirmada, reprogramada, cancelada o sin respuesta.',
			actions: [],
			is_recording: true,
			is_back_sound: true,
			is_sensitivity: false,
			is_opt_out: true,
		},
		{
			_id: '6650b7c1e4a2f9d3b8c10a04',
			type: 'inbound',
			language: 'hi',
			name: 'Priya',
			company_name: 'Shubh Insurance',
			accent: 'Indian',
			goal: 'Register new motor insurance claims and give the claim status to existing callers.',
			start_speech:
				'नमस्ते, शुभ इंश्योरेंस में आपका स्वागत है। मैं प्रिया बोल रही हूँ, मैं आपकी क्या मदद कर सकती हूँ?',
			voice_id: 'vc-hi-in-female-04',
			voice_name: 'Priya (हिन्दी)',
			script:
				'Ask for the policy number, the date of the incident and a short description, then read back the claim reference.',
			maximum_time_per_call: 15,
			is_voice_note: false,
			voice_note: '',
			ai_model_id: '64f1a2b3c4d5e6f708192a3d',
			sentiment: {
				general_prompt: 'How satisfied was the caller with the claim registration?',
				positive_prompt: 'The caller thanked the assistant or got their claim reference.',
				negative_prompt: 'The caller complained about delays or was upset.',
				neutral_prompt: 'The caller only asked for information.',
			},
			voice_speed: 1,
			is_filler: true,
			fillers: ['Achha'],
			assistant_image: assistantImage(5),
			ai_modal: 'eleven_multilingual_v2',
			sensitivity: 1500,
			temperature: 1.2,
			opt_out_script: OPT_OUT_SCRIPT,
			is_wait_start_speech: false,
			utterance_length: 6,
			meeting_note_prompt: 'Record policy number, incident date and damage description.',
			call_outcome_prompt: 'Claim registered, status given, or transferred to an agent.',
		},
	];
}

/** @returns {Record<string, {title: string, language: string, data: Array<{question: string, answer: string}>}>} */
function defaultKnowledgeBases() {
	return {
		[SEEDED_KNOWLEDGE_BASE_IDS.solarFaq]: {
			title: 'Brightline Solar FAQ',
			language: 'en',
			data: [
				{
					question: 'How long does an installation take?',
					answer: 'Most rooftop installations are finished within two days.',
				},
				{
					question: 'Is the site survey free?',
					answer: 'Yes, the site survey is free and there is no obligation to buy.',
				},
				{
					question: 'Do you offer financing?',
					answer: 'Yes, we offer financing over 5, 10 or 15 years.',
				},
			],
		},
		[SEEDED_KNOWLEDGE_BASE_IDS.workshopHours]: {
			title: 'Autohaus Weber workshop hours',
			language: 'en',
			data: [
				{
					question: 'When is the workshop open?',
					answer: 'Monday to Friday from 7:30 to 18:00, Saturday from 8:00 to 13:00.',
				},
				{
					question: 'Do you offer a courtesy car?',
					answer: 'Yes, a courtesy car is available if booked together with the appointment.',
				},
			],
		},
	};
}

module.exports = {
	ASSETS_URL,
	OPT_OUT_SCRIPT,
	SEEDED_KNOWLEDGE_BASE_IDS,
	defaultAssistants,
	defaultKnowledgeBases,
};
